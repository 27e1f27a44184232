// /social-videos: videos linked to products and collections.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { catalogRoutes } from '../catalog/routes.ts';
import { SocialVideo } from '../catalog/schemas.ts';
import { VideoCreate, VideoPatch } from './schemas.ts';
import { createVideo, getVideo, listVideos, updateVideo } from './service.ts';

const routes: FastifyPluginAsyncTypebox = async (app) => {
  catalogRoutes(app, {
    noun: 'social video',
    schema: SocialVideo,
    submits: false,
    get: getVideo,
    page: listVideos,
    list: { summary: 'List social videos' },
    create: { summary: 'Create a native social video', body: VideoCreate, run: createVideo },
    update: {
      summary: 'Update a native social video',
      description: 'Applies at once; id lists are full replacement sets. Connected videos answer 409 read_only_record.',
      body: VideoPatch,
      run: updateVideo,
    },
  });
};

export default routes;
