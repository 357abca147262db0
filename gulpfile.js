// tsc does not copy assets: copy the icons and the node codex files (*.node.json) next to the
// built nodes and credentials.
const { src, dest, task, parallel } = require('gulp');

const sharedIcons = () => src('icons/**/*.{png,svg}').pipe(dest('dist/icons'));
const nodeIcons = () =>
	src('nodes/**/*.{png,svg,node.json}', { allowEmpty: true }).pipe(dest('dist/nodes'));
const credentialIcons = () =>
	src('credentials/**/*.{png,svg}', { allowEmpty: true }).pipe(dest('dist/credentials'));

task('build:icons', parallel(sharedIcons, nodeIcons, credentialIcons));
