'use strict';
const path = require('node:path');

/** The built pages: `index.html` is the checkout (serve at `/`), `admin.html` the admin console (serve at `/admin`). */
module.exports = { webDistDir: path.join(__dirname, 'dist') };
