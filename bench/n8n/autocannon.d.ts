// autocannon ships no type declarations; bench/n8n.js uses it untyped.
declare module 'autocannon';
