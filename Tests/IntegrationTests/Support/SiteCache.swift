import Foundation
import TestSupport

/// An nginx origin serving a sandbox, and in front of it a second nginx acting as a site's shared
/// cache: `proxy_cache` with the slice module, so that Range requests are cached as 1 MiB slices.
/// The cache's settings are the ones docs/fleet.md recommends:
/// - `slice` + `$slice_range` in the key: any range a client asks for is served from whole slices,
///   each fetched from the origin once;
/// - `proxy_cache_lock`: machines asking for the same slice at once wait for the first fetch;
///   (assetsync after a CRC mismatch sends `no-cache`) is answered by the origin, and the fresh
///   response replaces the cached one.
///
/// `cache/` proxies the origin at full speed; `slow-cache/` proxies the origin's rate-limited
/// `slow/` (4 MiB/s), for a pull a test interrupts midway.
final class SiteCache {
    static let sliceSize = 1 << 20

    let origin: NginxServer
    let cache: NginxServer
    /// The cache's storage, removed with it.
    private let storage: TemporaryDirectory

    init(serving root: URL) throws {
        origin = try NginxServer(root: root, extraConfig: NginxServer.slowLocation(serving: root))
        storage = try TemporaryDirectory()
        let upstream = "http://127.0.0.1:\(origin.port)"
        cache = try NginxServer(
            root: storage.url,
            extraConfig: Self.location("/cache/", proxying: upstream + "/") + Self.location("/slow-cache/", proxying: upstream + "/slow/"),
            httpConfig: """
                proxy_cache_path "\(storage.path)/store" levels=1:2 keys_zone=assets:8m max_size=1g inactive=1h use_temp_path=off;
                """)
    }

    /// The base URL a manifest names to go through the cache (`slow`: at 4 MiB/s on a miss).
    func base(slow: Bool = false) -> String { cache.baseURL + (slow ? "slow-cache/" : "cache/") }

    func stop() {
        cache.stop()
        origin.stop()
    }

    private static func location(_ prefix: String, proxying upstream: String) -> String {
        """
        location \(prefix) {
            slice \(sliceSize);
            proxy_cache assets;
            proxy_cache_key $uri$is_args$args$slice_range;
            proxy_set_header Range $slice_range;
            proxy_http_version 1.1;
            proxy_set_header Connection "";
            proxy_cache_valid 200 206 1h;
            proxy_cache_lock on;
            proxy_cache_lock_age 5m;
            proxy_cache_lock_timeout 5m;
            proxy_cache_bypass $http_cache_control $http_pragma;
            add_header X-Cache-Status $upstream_cache_status always;
            proxy_pass \(upstream);
        }

        """
    }
}
