import MoltCore
