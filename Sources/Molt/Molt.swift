@_exported import MoltCore
