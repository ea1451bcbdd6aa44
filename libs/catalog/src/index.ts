export { evolveCatalogEntry, withUpstream, upstreamOf } from './catalog.projection';
export { resolveForPrincipal, listVisible } from './catalog.view';
export type { Pins, VisibleTool } from './catalog.view';
