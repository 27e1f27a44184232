// Schema changes of the catalog work (empty so far).
export const statements: string[] = [];
