import ArgumentParser
import Molt

/// `--unknown-tables refuse|keep|drop`: ``UnknownContents`` on the command line.
enum UnknownTablesArgument: String, CaseIterable, ExpressibleByArgument {
    case refuse, keep, drop

    var contents: UnknownContents {
        switch self {
        case .refuse: .refuse
        case .keep: .keep
        case .drop: .drop
        }
    }
}
