// /social-videos: videos linked to products and collections.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { ctxOf } from '../../http/context.ts';
import { PageQuery, pageRequest } from '../../http/paging.ts';
import { Enum, IdParams, Many, Nullable, One, CREATE_ERRORS, GET_ERRORS, LIST_ERRORS, UPDATE_ERRORS, Uuid, problems } from '../../http/schemas.ts';
import { Description, IdList, SocialVideo, Title } from '../catalog/schemas.ts';
import { createVideo, getVideo, listVideos, updateVideo } from './service.ts';

const strict = { additionalProperties: false } as const;
const ListQuery = Type.Object({ limit: Type.Optional(PageQuery.limit), cursor: Type.Optional(PageQuery.cursor), updated_after: Type.Optional(PageQuery.updated_after) }, strict);
const fields = {
  description: Type.Optional(Nullable(Description)),
  status: Type.Optional(Enum(['draft', 'published'], { description: 'Default draft' })),
  video_url: Type.Optional(Nullable(Type.String({ format: 'uri', pattern: '^https://', maxLength: 2048, description: 'https URL; exactly one of video_url and video_asset_id' }))),
  video_asset_id: Type.Optional(Nullable(Uuid('A video media asset of this merchant'))),
  thumbnail_asset_id: Type.Optional(Nullable(Uuid('A media asset of this merchant'))),
  product_ids: Type.Optional(IdList('Product')),
  collection_ids: Type.Optional(IdList('Collection')),
};
const VideoCreate = Type.Object({ title: Title, ...fields }, strict);
const VideoPatch = Type.Object({ title: Type.Optional(Title), ...fields }, strict);

const routes: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/social-videos',
    { config: { scope: 'social_videos.read' }, schema: { operationId: 'listSocialVideos', tags: ['Social videos'], summary: 'List social videos', querystring: ListQuery, response: { 200: Many(SocialVideo, 'A page of social videos.'), ...problems(...LIST_ERRORS) } } },
    async (req) => {
      const { items, meta } = await listVideos(ctxOf(req), pageRequest(app.secret, '/social-videos', req.query), req.query);
      return { data: items, request_id: req.id, meta };
    },
  );
  app.get(
    '/social-videos/:id',
    { config: { scope: 'social_videos.read' }, schema: { operationId: 'getSocialVideo', tags: ['Social videos'], summary: 'Get a social video', params: IdParams, response: { 200: One(SocialVideo, 'The social video.'), ...problems(...GET_ERRORS) } } },
    async (req) => ({ data: await getVideo(ctxOf(req), req.params.id), request_id: req.id }),
  );
  app.post(
    '/social-videos',
    { config: { scope: 'social_videos.write' }, schema: { operationId: 'createSocialVideo', tags: ['Social videos'], summary: 'Create a native social video', body: VideoCreate, response: { 201: One(SocialVideo, 'The social video created.'), ...problems(...CREATE_ERRORS) } } },
    async (req, reply) => {
      const v = await createVideo(ctxOf(req), req.body);
      reply.code(201).header('Location', `/api/integrations/v1/social-videos/${v.id}`);
      return { data: v, request_id: req.id };
    },
  );
  app.patch(
    '/social-videos/:id',
    { config: { scope: 'social_videos.write' }, schema: { operationId: 'updateSocialVideo', tags: ['Social videos'], summary: 'Update a native social video', description: 'Applies at once; id lists are full replacement sets. Connected videos answer 409 read_only_record.', params: IdParams, body: VideoPatch, response: { 200: One(SocialVideo, 'The social video after the change.'), ...problems(...UPDATE_ERRORS) } } },
    async (req) => ({ data: await updateVideo(ctxOf(req), req.params.id, req.body), request_id: req.id }),
  );
};

export default routes;
