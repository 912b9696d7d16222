internal import Foundation

/// Turns Foundation's file errors into ``MoltError``s that name the file and say what to do.
public enum FileErrors {
    /// The error for a file that could not be read.
    public static func readFailed(_ path: String, underlying: any Error) -> MoltError {
        let nsError = underlying as NSError
        let location = SourceLocation(file: path)
        if nsError.domain == NSCocoaErrorDomain, nsError.code == NSFileReadNoSuchFileError {
            return missing(path)
        }
        if nsError.domain == NSPOSIXErrorDomain, nsError.code == Int(ENOENT) {
            return missing(path)
        }
        if (nsError.domain == NSCocoaErrorDomain && nsError.code == NSFileReadNoPermissionError)
            || (nsError.domain == NSPOSIXErrorDomain && nsError.code == Int(EACCES))
        {
            return MoltError(
                .fileReadNoPermission, "the file cannot be read: permission denied", location: location,
                recovery: "Check the file's permissions.")
        }
        return MoltError(
            .fileReadUnknown, "the file cannot be read: \(nsError.localizedDescription)",
            location: location, underlying: DescribedError(underlying))
    }

    /// The error for a file or folder that does not exist.
    public static func missing(_ path: String) -> MoltError {
        MoltError(
            .fileReadNoSuchFile, "no such file or folder", location: SourceLocation(file: path),
            recovery: "Check the path.")
    }
}
