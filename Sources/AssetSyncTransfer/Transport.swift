package import AssetSyncModel

/// What carries a pull's downloads: streams each request into the sink its delegate opens,
/// hands proven downloads and every file's result to the delegate, and stops (keeping the
/// bytes) when `shouldStop` turns true. `CurlTransport` outside tests; a fake in unit tests.
package protocol Transport: Sendable {
    /// Runs on the calling thread until every request has a result or the run stops.
    /// - Parameter wakeFD: a descriptor that becomes readable when `shouldStop` may have turned true.
    func transfer(
        _ requests: [TransferEngine.Request], options: TransferOptions, delegate: any TransferEngineDelegate, wakeFD: Int32,
        shouldStop: @escaping () -> Bool, clock: @escaping () -> Double
    ) -> (ending: TransferEngine.Ending, results: [FileResult])
}
