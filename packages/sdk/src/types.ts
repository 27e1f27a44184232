// Request and response types of every operation, derived from the generated document types.
import type { components, operations, paths } from './generated/openapi.js';
import type { OPERATIONS, OperationId } from './generated/operations.js';

type Op<K extends OperationId> = operations[K];
type Defined<T> = [Exclude<T, undefined>] extends [never] ? {} : Exclude<T, undefined>;

export type PathParams<K extends OperationId> = Defined<Op<K>['parameters']['path']>;
export type QueryParams<K extends OperationId> = Defined<Op<K>['parameters']['query']>;
type BodyOf<R> = [R] extends [never] ? never : R extends { content: { 'application/json': infer B } } ? B : never;
export type RequestBody<K extends OperationId> = BodyOf<NonNullable<Op<K>['requestBody']>>;

/** What a method takes: path and query parameters side by side, the JSON body under `body`. */
export type Input<K extends OperationId> = PathParams<K> & QueryParams<K> & ([RequestBody<K>] extends [never] ? {} : { body: RequestBody<K> });

type SuccessStatus = 200 | 201 | 202 | 204;
/** The parsed 2xx body (the envelope: `data`, `request_id`, and `meta` for lists). */
export type Response<K extends OperationId> = {
  [S in keyof Op<K>['responses']]: S extends SuccessStatus
    ? Op<K>['responses'][S] extends { content: { 'application/json': infer R } }
      ? R
      : undefined
    : never;
}[keyof Op<K>['responses']];

/** Operations that answer a cursor list (`meta.next_cursor`). */
export type ListOperationId = { [K in OperationId]: (typeof OPERATIONS)[K]['list'] extends true ? K : never }[OperationId];
/** One item of a list operation's `data`. */
export type ListItem<K extends OperationId> = Response<K> extends { data: (infer I)[] } ? I : never;
/** `data` of an operation's answer. */
export type Data<K extends OperationId> = Response<K> extends { data: infer D } ? D : never;

type RequiredKeys<T> = { [P in keyof T]-?: {} extends Pick<T, P> ? never : P }[keyof T];
export type HasRequired<T> = [RequiredKeys<T>] extends [never] ? false : true;

// Resource types: the document's named schema when it has one, else the resource's GET answer.
type Schemas = components extends { schemas: infer S } ? S : {};
export type Named<N extends string, Fallback> = [Schemas] extends [never] ? Fallback : N extends keyof Schemas ? Schemas[N] : Fallback;
type GetData<P extends keyof paths> = paths[P] extends { get: { responses: { 200: { content: { 'application/json': { data: infer D } } } } } } ? D : never;
type Elem<T> = T extends (infer I)[] ? I : never;

export type Order = Named<'Order', GetData<'/api/integrations/v1/orders/{id}'>>;
export type Fulfillment = Named<'Fulfillment', GetData<'/api/integrations/v1/fulfillments/{id}'>>;
export type InventoryRow = Named<'InventoryRow', Elem<GetData<'/api/integrations/v1/inventory'>>>;
export type Product = Named<'Product', GetData<'/api/integrations/v1/products/{id}'>>;
export type Collection = Named<'Collection', GetData<'/api/integrations/v1/collections/{id}'>>;
export type SocialVideo = Named<'SocialVideo', GetData<'/api/integrations/v1/social-videos/{id}'>>;
export type Location = Named<'Location', Elem<GetData<'/api/integrations/v1/locations'>>>;
