/** The built pages: `index.html` is the checkout (serve at `/`), `admin.html` the admin console (serve at `/admin`), assets under `assets/`. */
export declare const webDistDir: string;
