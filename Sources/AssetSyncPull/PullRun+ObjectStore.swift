import AssetSyncModel
import AssetSyncTransfer

extension PullRun {
    /// The request's transfer options, with the store its `s3://` URLs go to resolved from the AWS
    /// conventions and the request's own values, when `namesStore` (a manifest or its URL names
    /// one) or an endpoint is given; otherwise the shared files are not even read.
    func transferOptions(namesStore: Bool) throws(PullRunFailure) -> TransferOptions {
        var options = request.options
        guard namesStore || request.objectStorage.namesEndpoint else { return options }
        do { options.objectStore = try S3Settings.access(for: request.objectStorage) } catch { throw .objectStore(error) }
        return options
    }
}
