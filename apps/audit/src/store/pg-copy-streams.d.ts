// The one part of pg-copy-streams the trail uses (the package ships no types): COPY ... FROM STDIN as a writable stream.
declare module 'pg-copy-streams' {
  import type { Writable } from 'node:stream';

  /** Handed to node-postgres's `query`; `rowCount` is what PostgreSQL reported once the stream finished. */
  export interface CopyStreamQuery extends Writable {
    rowCount: number;
  }

  export function from(text: string): CopyStreamQuery;
}
