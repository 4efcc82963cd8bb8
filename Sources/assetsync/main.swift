import AssetSync
import Glibc

exit(CommandLineTool.run(Array(CommandLine.arguments.dropFirst()), console: Console()).rawValue)
