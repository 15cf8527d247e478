/// Names and version shared by the app, the trace and HTTP requests.
public enum AppInfo {
    public static let version = "0.1.0"
    public static let applicationID = "io.github.classicphotos.ClassicPhotos"
    public static let displayName = "Classic Photos"
}
