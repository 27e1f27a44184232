// The portal's events page: an event with its payload and the deliveries it made.
import { Type, type Static } from 'typebox';
import { Nullable, Timestamp, Uuid } from '../../http/schemas.ts';
import { DeliveryStatus } from '../webhook-endpoints/schemas.ts';

export const LoggedEvent = Type.Object({
  id: Uuid(),
  type: Type.String(),
  created_at: Timestamp(),
  location_id: Nullable(Uuid()),
  payload: Type.Unknown({ description: 'data.object of the webhook body' }),
  deliveries: Type.Array(
    Type.Object({
      id: Uuid(),
      endpoint_id: Uuid(),
      endpoint_url: Type.String(),
      status: DeliveryStatus,
      attempts: Type.Integer(),
      last_status_code: Nullable(Type.Integer()),
    }),
  ),
});
export type LoggedEvent = Static<typeof LoggedEvent>;
