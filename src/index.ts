/**
 * The action's entry point for both main and post (action.yml points both
 * at dist/index.js): main records that it ran, so the second invocation is
 * post.
 */
import { run } from './main.js'
import { post } from './post.js'
import { isPost } from './state.js'

await (isPost() ? post() : run())
