// Schema changes of the warehouse work (empty so far).
export const statements: string[] = [];
