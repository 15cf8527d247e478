// A GListModel of photo identities for the GTK list view.
//
// GtkListView asks its model only for the items it binds, so a list of a million photos needs
// no million objects: this model keeps one 64-bit identity per row and makes a small
// CpPhotoItem (carrying the identity) when an item is asked for.
#pragma once
#include <gio/gio.h>

G_BEGIN_DECLS

#define CP_TYPE_PHOTO_ITEM (cp_photo_item_get_type())
G_DECLARE_FINAL_TYPE(CpPhotoItem, cp_photo_item, CP, PHOTO_ITEM, GObject)

/// The identity of the photo this item stands for.
guint64 cp_photo_item_get_id(CpPhotoItem *item);

#define CP_TYPE_PHOTO_LIST_MODEL (cp_photo_list_model_get_type())
G_DECLARE_FINAL_TYPE(CpPhotoListModel, cp_photo_list_model, CP, PHOTO_LIST_MODEL, GObject)

CpPhotoListModel *cp_photo_list_model_new(void);

/// Removes `removed` rows at `position` and inserts `added` identities there (one
/// items-changed emission).
void cp_photo_list_model_splice(CpPhotoListModel *model, guint position, guint removed,
                                const guint64 *ids, guint added);

/// The identity at `position` (0 if out of range).
guint64 cp_photo_list_model_get_id(CpPhotoListModel *model, guint position);

G_END_DECLS
