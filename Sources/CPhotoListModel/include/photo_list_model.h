// A GListModel of photo identities for the GTK list view.
//
// GtkListView asks its model only for the items it binds, so a list of a million photos needs
// no million objects: this model keeps one 64-bit identity per row and makes a small item
// (carrying the identity) when an item is asked for.
//
// The header names only plain C types: GLib's headers belong to the CGLib module, and a second
// module including them would own a copy of their declarations, which Swift then finds in
// whichever module clang built first.
#pragma once
#include <stdint.h>

/// A new model (a GListModel; the caller owns the reference).
void *cp_photo_list_model_new(void);

/// Removes `removed` rows at `position` and inserts `added` identities there (one
/// items-changed emission).
void cp_photo_list_model_splice(void *model, unsigned position, unsigned removed, const uint64_t *ids,
                                unsigned added);

/// Puts the `count` rows at `position` in another order: `ids` are the same identities, in
/// the new order (one items-changed emission).
///
/// With `in_place`, every item handed out for a row in that run (the rows the views have
/// made) stands from now on for the photo that comes to its position: a view that keeps its
/// place finds the same items where they were, and keeps their widgets instead of making them
/// all again (GTK 4.8 makes up to 200 rows when their items change), but must show each
/// again. Without it, items keep their photos wherever they go.
void cp_photo_list_model_reorder(void *model, unsigned position, const uint64_t *ids, unsigned count, int in_place);

/// The identity at `position` (0 if out of range).
uint64_t cp_photo_list_model_get_id(void *model, unsigned position);

/// The identity of the photo an item of the model stands for.
uint64_t cp_photo_item_get_id(void *item);
