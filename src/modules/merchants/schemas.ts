// Bodies of operator onboarding (operator API and the operator CLI).
import { Type, type Static } from 'typebox';
import { NonBlank } from '../../http/schemas.ts';

const strict = { additionalProperties: false } as const;

export const MerchantBody = Type.Object({ name: NonBlank(), currency: Type.Optional(Type.String({ pattern: '^[A-Za-z]{3}$', maxLength: 3 })) }, strict);
export type MerchantBody = Static<typeof MerchantBody>;

export const PortalUserBody = Type.Object(
  { email: Type.String({ format: 'email', maxLength: 254 }), password: Type.String({ minLength: 8, maxLength: 200 }) },
  strict,
);
export type PortalUserBody = Static<typeof PortalUserBody>;
