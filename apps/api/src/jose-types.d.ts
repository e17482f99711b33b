// jose declares its types only under "exports", which this repository's
// "moduleResolution": "node" does not read: its declarations, by their path.
// (Not `paths` in tsconfig: tsx applies those at run time too.)
declare module 'jose' {
  export * from 'jose/dist/types/index';
}
