// /social-videos: videos linked to products and collections.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { ctxOf } from '../../http/context.ts';
import { listRoute } from '../../http/paging.ts';
import { IdParams, Many, One, CREATE_ERRORS, GET_ERRORS, LIST_ERRORS, UPDATE_ERRORS, problems } from '../../http/schemas.ts';
import { ListQuery, SocialVideo } from '../catalog/schemas.ts';
import { VideoCreate, VideoPatch } from './schemas.ts';
import { createVideo, getVideo, listVideos, updateVideo } from './service.ts';

const routes: FastifyPluginAsyncTypebox = async (app) => {
  listRoute(
    app,
    '/social-videos',
    { config: { scope: 'social_videos.read' }, schema: { operationId: 'listSocialVideos', tags: ['Social videos'], summary: 'List social videos', querystring: ListQuery, response: { 200: Many(SocialVideo, 'A page of social videos.'), ...problems(...LIST_ERRORS) } } },
    (req, page, query) => listVideos(ctxOf(req), page, query),
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
      reply.code(201).header('Location', `${app.prefix}/social-videos/${v.id}`);
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
