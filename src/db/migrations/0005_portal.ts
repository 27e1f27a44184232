// Schema changes of the portal work (empty so far).
export const statements: string[] = [];
