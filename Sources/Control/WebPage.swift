/// What every page of the web remote shares: the document's head (UTF-8, a phone's viewport,
/// no external assets) and the start of its script, which reads the API token from the page's
/// `?token=` and passes it on.
///
/// The script starts with `token`, `headers` (the bearer header, or none), `withToken(url)` (the
/// URL with `?token=` for what a browser fetches without headers: images, event streams, links)
/// and `$(id)`.
enum WebPage {
    static func document(title: String, style: String, body: String, script: String) -> String {
        """
        <!doctype html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <title>\(title)</title>
        <style>
        \(style)</style>
        </head>
        <body>
        \(body)<script>
        \(prelude)\(script)</script>
        </body>
        </html>

        """
    }

    static let prelude = #"""
        "use strict";
        const token = new URLSearchParams(location.search).get("token");
        const headers = token ? { "Authorization": "Bearer " + token } : {};
        const withToken = (url) => token ? url + (url.includes("?") ? "&" : "?") + "token=" + encodeURIComponent(token) : url;
        const $ = (id) => document.getElementById(id);

        """#
}
