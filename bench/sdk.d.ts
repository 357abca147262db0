// The official Meta SDK ships no type declarations; the bench uses it untyped.
declare module 'facebook-nodejs-business-sdk';
