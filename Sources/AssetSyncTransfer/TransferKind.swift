/// What a request fetches, which decides how its bytes are bounded, asked for and proven.
package enum TransferKind: Sendable, Equatable {
    /// A manifest entry's file: exactly its size, resumed with `Range` and `If-Range`, proven by its
    /// size and CRC-32 (`DownloadSink.mismatch`).
    case file
    /// A document that nothing gives a size or checksum for (a remote manifest, its signature): at
    /// most the entry's size, asked for whole on every attempt, proven by its status alone. With
    /// `held`, the copy kept from an earlier fetch, the request is conditional (`If-None-Match`,
    /// `If-Modified-Since`) while it goes to the URL the copy came from, and a 304 is a success
    /// that keeps the copy.
    case document(held: CachedManifest?)
}
