package import AssetSyncModel

/// The transport of every real pull: a `TransferEngine` on libcurl's multi interface.
package struct CurlTransport: Transport {
    package init() {}

    package func transfer(
        _ requests: [TransferEngine.Request], options: TransferOptions, delegate: any TransferEngineDelegate, wakeFD: Int32,
        shouldStop: @escaping () -> Bool, clock: @escaping () -> Double
    ) -> (ending: TransferEngine.Ending, results: [FileResult]) {
        let engine = TransferEngine(
            requests: requests, options: options, delegate: delegate, wakeFD: wakeFD, shouldStop: shouldStop, clock: clock)
        let ending = engine.run()
        return (ending, engine.results)
    }
}
