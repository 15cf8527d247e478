import CGLib
import CGtk

// The GTK, GDK and libadwaita classes the app holds handles on, each named by its GType.

// MARK: Objects

/// Any GObject, before its class is checked (`Handle.checked(as:)`).
public enum AnyGObject: GObjectKind { public static var type: GType { g_object_get_type() } }
/// The application (a `GtkApplication`; the app's own is an `AdwApplication`).
public enum Application: GObjectKind { public static var type: GType { gtk_application_get_type() } }
/// The objects of a GtkBuilder file.
public enum Builder: GObjectKind { public static var type: GType { gtk_builder_get_type() } }
public enum MenuModel: GObjectKind { public static var type: GType { g_menu_model_get_type() } }
/// A menu model whose items are changed in code (a `GMenu`).
public enum Menu: GObjectKind { public static var type: GType { g_menu_get_type() } }
/// A picture's pixels, uploaded once and drawn by any number of widgets.
public enum Texture: GObjectKind { public static var type: GType { gdk_texture_get_type() } }
/// A libadwaita animation of a value from one number to another over a fixed time.
public enum TimedAnimation: GObjectKind { public static var type: GType { adw_timed_animation_get_type() } }
public enum Adjustment: GObjectKind { public static var type: GType { gtk_adjustment_get_type() } }
public enum SingleSelection: GObjectKind { public static var type: GType { gtk_single_selection_get_type() } }
/// A selection of any number of a list's items (click, Ctrl+click, Shift+click, a rubber band).
public enum MultiSelection: GObjectKind { public static var type: GType { gtk_multi_selection_get_type() } }
public enum SignalListItemFactory: GObjectKind {
    public static var type: GType { gtk_signal_list_item_factory_get_type() }
}
public enum ListItem: GObjectKind { public static var type: GType { gtk_list_item_get_type() } }
public enum FileChooserNative: GObjectKind { public static var type: GType { gtk_file_chooser_native_get_type() } }
public enum PrintOperation: GObjectKind { public static var type: GType { gtk_print_operation_get_type() } }
/// Where a print operation's page is drawn.
public enum PrintContext: GObjectKind { public static var type: GType { gtk_print_context_get_type() } }
/// What a video widget plays (a `GtkMediaStream`, a `GtkMediaFile` for a file), and its
/// frames as a paintable.
public enum MediaStream: GObjectKind { public static var type: GType { gtk_media_stream_get_type() } }
public enum FrameClock: GObjectKind { public static var type: GType { gdk_frame_clock_get_type() } }
/// The surface of a window on screen (a `GdkToplevel`).
public enum ToplevelSurface: GObjectKind { public static var type: GType { gdk_toplevel_get_type() } }

// MARK: Widgets

public enum AnyWidget: WidgetKind { public static var type: GType { gtk_widget_get_type() } }
public enum Overlay: WidgetKind { public static var type: GType { gtk_overlay_get_type() } }
public enum Bin: WidgetKind { public static var type: GType { adw_bin_get_type() } }
public enum Box: WidgetKind { public static var type: GType { gtk_box_get_type() } }
public enum Revealer: WidgetKind { public static var type: GType { gtk_revealer_get_type() } }
public enum Label: WidgetKind { public static var type: GType { gtk_label_get_type() } }
public enum Inscription: WidgetKind { public static var type: GType { gtk_inscription_get_type() } }
public enum Picture: WidgetKind { public static var type: GType { gtk_picture_get_type() } }
/// A video with GTK's own controls (play, seek, volume, fullscreen), played by GStreamer.
public enum Video: WidgetKind { public static var type: GType { gtk_video_get_type() } }
public enum Entry: WidgetKind { public static var type: GType { gtk_entry_get_type() } }
public enum SearchEntry: WidgetKind { public static var type: GType { gtk_search_entry_get_type() } }
public enum SearchBar: WidgetKind { public static var type: GType { gtk_search_bar_get_type() } }
public enum Button: WidgetKind { public static var type: GType { gtk_button_get_type() } }
public enum ToggleButton: WidgetKind { public static var type: GType { gtk_toggle_button_get_type() } }
/// A slider (GtkScale, a GtkRange).
public enum Scale: WidgetKind { public static var type: GType { gtk_scale_get_type() } }
public enum MenuButton: WidgetKind { public static var type: GType { gtk_menu_button_get_type() } }
public enum Popover: PopoverKind { public static var type: GType { gtk_popover_get_type() } }
/// A popover showing a menu model's items.
public enum PopoverMenu: PopoverKind { public static var type: GType { gtk_popover_menu_get_type() } }
public enum Spinner: WidgetKind { public static var type: GType { gtk_spinner_get_type() } }
public enum ProgressBar: WidgetKind { public static var type: GType { gtk_progress_bar_get_type() } }
public enum ToastOverlay: WidgetKind { public static var type: GType { adw_toast_overlay_get_type() } }
public enum HeaderBar: WidgetKind { public static var type: GType { adw_header_bar_get_type() } }
public enum WindowTitle: WidgetKind { public static var type: GType { adw_window_title_get_type() } }
public enum Stack: WidgetKind { public static var type: GType { gtk_stack_get_type() } }
public enum StatusPage: WidgetKind { public static var type: GType { adw_status_page_get_type() } }
public enum ScrolledWindow: WidgetKind { public static var type: GType { gtk_scrolled_window_get_type() } }
public enum ListView: WidgetKind { public static var type: GType { gtk_list_view_get_type() } }
public enum Grid: WidgetKind { public static var type: GType { gtk_grid_get_type() } }
public enum GridView: WidgetKind { public static var type: GType { gtk_grid_view_get_type() } }

// MARK: Windows

public enum ApplicationWindow: WindowKind { public static var type: GType { adw_application_window_get_type() } }
public enum MessageDialog: WindowKind { public static var type: GType { adw_message_dialog_get_type() } }
/// The desktop's list of apps that can open a file.
public enum AppChooserDialog: WindowKind { public static var type: GType { gtk_app_chooser_dialog_get_type() } }
/// libadwaita's About window (`AdwAboutWindow`).
public enum About: WindowKind { public static var type: GType { adw_about_window_get_type() } }

// MARK: Event controllers

/// A drop target that reads what was dropped itself (`GtkDropTargetAsync`).
public enum DropTarget: ControllerKind { public static var type: GType { gtk_drop_target_async_get_type() } }
/// The start of a drag out of a widget, and what it offers.
public enum DragSource: ControllerKind { public static var type: GType { gtk_drag_source_get_type() } }
public enum KeyController: ControllerKind { public static var type: GType { gtk_event_controller_key_get_type() } }
public enum ScrollController: ControllerKind {
    public static var type: GType { gtk_event_controller_scroll_get_type() }
}
/// Tells when the keyboard focus comes into or leaves a widget (or one inside it).
public enum FocusController: ControllerKind {
    public static var type: GType { gtk_event_controller_focus_get_type() }
}
public enum MotionController: ControllerKind {
    public static var type: GType { gtk_event_controller_motion_get_type() }
}
/// A controller that sees every event, before it is interpreted.
public enum LegacyController: ControllerKind {
    public static var type: GType { gtk_event_controller_legacy_get_type() }
}
public enum GestureClick: GestureKind { public static var type: GType { gtk_gesture_click_get_type() } }
public enum GestureDrag: GestureKind { public static var type: GType { gtk_gesture_drag_get_type() } }
/// A two-finger pinch.
public enum GestureZoom: GestureKind { public static var type: GType { gtk_gesture_zoom_get_type() } }
