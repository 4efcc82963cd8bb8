import AssetSyncCLI
import Glibc

exit(CommandLineTool.main(Array(CommandLine.arguments.dropFirst())))
