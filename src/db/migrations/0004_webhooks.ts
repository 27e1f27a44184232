// Schema changes of the webhooks work (empty so far).
export const statements: string[] = [];
