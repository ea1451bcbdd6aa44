export { evolveCatalogEntry, withUpstream, upstreamOf } from './catalog.projection';
export { resolveForPrincipal, listVisible } from './catalog.view';
export type { Pins, VisibleTool } from './catalog.view';
export { VisibleListCache, visibilityKey, isVisibleCatalog } from './visible-list.cache';
export type { VisibleCatalog, VisibleListCacheLimits } from './visible-list.cache';
