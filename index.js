// n8n loads this package through the "n8n" block of package.json; the core is importable as
// require('n8n-nodes-lead-capi/dist/shared').
module.exports = {};
