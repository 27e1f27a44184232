// API key records and the body that creates one (operator API, portal and the operator CLI).
import { Type, type Static } from 'typebox';
import { Enum, Literals, NonBlank, Nullable, Timestamp, Uuid } from '../../http/schemas.ts';
import { SCOPES } from '../../http/scopes.ts';
import { LocationRestriction } from '../../http/location-restriction.ts';

export const ApiKey = Type.Object({
  id: Uuid(),
  label: Type.String(),
  prefix: Type.String(),
  scopes: Type.Array(Enum(SCOPES)),
  location_ids: Nullable(Type.Array(Uuid())),
  created_at: Timestamp(),
  last_used_at: Nullable(Timestamp()),
  revoked_at: Nullable(Timestamp()),
});
export type ApiKey = Static<typeof ApiKey>;

export const ApiKeyBody = Type.Object(
  {
    label: NonBlank(100),
    scopes: Type.Array(Literals(SCOPES), { minItems: 1, maxItems: SCOPES.length, uniqueItems: true }),
    location_ids: LocationRestriction,
  },
  { additionalProperties: false },
);
export type ApiKeyBody = Static<typeof ApiKeyBody>;
