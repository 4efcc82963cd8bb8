/// The model's types (the manifest, plans, file results, the pipeline's events, the request and its
/// failures in the layers' terms) come with the library: its `package` side, for the command line,
/// speaks them. None of them is public.
@_exported public import AssetSyncModel
