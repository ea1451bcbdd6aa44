export { evolveCatalogEntry, withUpstream, upstreamOf, sortCatalogVersions } from './catalog.projection';
export { catalogEntryText, catalogVersionText, parseCatalogVersion, catalogHeadText, catalogVersionRecordText } from './catalog-entry.text';
export type { CatalogRecordText } from './catalog-entry.text';
export { resolveForPrincipal, listVisible, withSunsetsApplied, sunsetPassed } from './catalog.view';
export type { Pins, VisibleTool } from './catalog.view';
export { VisibleListCache, visibilityKey, isVisibleCatalog } from './visible-list.cache';
export type { VisibleCatalog, VisibleListCacheLimits } from './visible-list.cache';
