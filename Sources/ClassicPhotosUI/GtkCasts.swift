// Pointer casts between GTK's C types (some imported as structs, some as opaque pointers).

import CGtk

@inline(__always) func gtkCast<T>(_ pointer: OpaquePointer) -> UnsafeMutablePointer<T> {
    UnsafeMutablePointer(pointer)
}

@inline(__always) func gtkCast<T, U>(_ pointer: UnsafeMutablePointer<U>) -> UnsafeMutablePointer<T> {
    UnsafeMutableRawPointer(pointer).assumingMemoryBound(to: T.self)
}

@inline(__always) func widget(_ pointer: OpaquePointer) -> UnsafeMutablePointer<GtkWidget> { gtkCast(pointer) }
@inline(__always) func widget<U>(_ pointer: UnsafeMutablePointer<U>) -> UnsafeMutablePointer<GtkWidget> {
    gtkCast(pointer)
}

@inline(__always) func gtkCast<U>(_ pointer: UnsafeMutablePointer<U>) -> OpaquePointer { OpaquePointer(pointer) }
@inline(__always) func gtkCast(_ pointer: OpaquePointer) -> OpaquePointer { pointer }
