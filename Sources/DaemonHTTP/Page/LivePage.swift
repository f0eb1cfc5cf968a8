/// The live page: one HTML file with its CSS and script inline
/// (Resources/live.html, embedded in the binary), no outside assets.
enum LivePage {
    static let html = PackageResources.live_html

    /// Nothing on the page is loaded from elsewhere, and it is not framed by other sites.
    static let headers: [(name: String, value: String)] = [
        ("Content-Security-Policy", "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; connect-src 'self'; frame-ancestors 'none'"),
        ("X-Content-Type-Options", "nosniff"),
    ]
}
