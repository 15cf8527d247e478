#include "photo_list_model.h"

#include <gio/gio.h>
#include <string.h>

#define CP_TYPE_PHOTO_ITEM (cp_photo_item_get_type())
G_DECLARE_FINAL_TYPE(CpPhotoItem, cp_photo_item, CP, PHOTO_ITEM, GObject)

#define CP_TYPE_PHOTO_LIST_MODEL (cp_photo_list_model_get_type())
G_DECLARE_FINAL_TYPE(CpPhotoListModel, cp_photo_list_model, CP, PHOTO_LIST_MODEL, GObject)

struct _CpPhotoItem {
    GObject parent_instance;
    guint64 id;
    /* The table of items handed out that holds this one (not owned), cleared when the model
     * goes first. A plain pointer rather than a weak reference: GTK asks for every row put back
     * by a large reorder (100,000 items made and let go), and a weak reference's locked qdata
     * was a third of each. */
    GHashTable *alive;
};

G_DEFINE_FINAL_TYPE(CpPhotoItem, cp_photo_item, G_TYPE_OBJECT)

static void cp_photo_item_finalize(GObject *object) {
    CpPhotoItem *item = CP_PHOTO_ITEM(object);
    if (item->alive != NULL && g_hash_table_lookup(item->alive, &item->id) == item)
        g_hash_table_remove(item->alive, &item->id);
    G_OBJECT_CLASS(cp_photo_item_parent_class)->finalize(object);
}

static void cp_photo_item_class_init(CpPhotoItemClass *klass) {
    G_OBJECT_CLASS(klass)->finalize = cp_photo_item_finalize;
}
static void cp_photo_item_init(CpPhotoItem *item) { (void)item; }

uint64_t cp_photo_item_get_id(void *item) {
    g_return_val_if_fail(CP_IS_PHOTO_ITEM(item), 0);
    return CP_PHOTO_ITEM(item)->id;
}

struct _CpPhotoListModel {
    GObject parent_instance;
    GArray *ids; /* guint64 per row */
    /* The items handed out and still alive, by identity (not owned: each removes itself when
     * it is finalized). A row taken out and put back in one splice is then the same object,
     * which GTK's list views and selections recognise: they keep its widget, its selection and
     * the scroll anchor on it instead of guessing a new place. */
    GHashTable *alive;
};

static void cp_photo_list_model_iface_init(GListModelInterface *iface);

G_DEFINE_FINAL_TYPE_WITH_CODE(CpPhotoListModel, cp_photo_list_model, G_TYPE_OBJECT,
                              G_IMPLEMENT_INTERFACE(G_TYPE_LIST_MODEL, cp_photo_list_model_iface_init))

static GType cp_photo_list_model_get_item_type(GListModel *list) {
    (void)list;
    return CP_TYPE_PHOTO_ITEM;
}

static guint cp_photo_list_model_get_n_items(GListModel *list) {
    return CP_PHOTO_LIST_MODEL(list)->ids->len;
}

static gpointer cp_photo_list_model_get_item(GListModel *list, guint position) {
    CpPhotoListModel *model = CP_PHOTO_LIST_MODEL(list);
    if (position >= model->ids->len)
        return NULL;
    guint64 *key = &g_array_index(model->ids, guint64, position);
    CpPhotoItem *item = g_hash_table_lookup(model->alive, key);
    if (item != NULL)
        return g_object_ref(item);
    item = g_object_new(CP_TYPE_PHOTO_ITEM, NULL);
    item->id = *key;
    /* The key lives in the item itself, which outlives its entry. */
    g_hash_table_insert(model->alive, &item->id, item);
    item->alive = model->alive;
    return item;
}

static void cp_photo_list_model_iface_init(GListModelInterface *iface) {
    iface->get_item_type = cp_photo_list_model_get_item_type;
    iface->get_n_items = cp_photo_list_model_get_n_items;
    iface->get_item = cp_photo_list_model_get_item;
}

static void cp_photo_list_model_forget_item(gpointer key, gpointer value, gpointer model) {
    (void)key;
    (void)model;
    CP_PHOTO_ITEM(value)->alive = NULL;
}

static void cp_photo_list_model_finalize(GObject *object) {
    CpPhotoListModel *model = CP_PHOTO_LIST_MODEL(object);
    /* Items that outlive the model must not call back into it. */
    g_hash_table_foreach(model->alive, cp_photo_list_model_forget_item, model);
    g_hash_table_unref(model->alive);
    g_array_unref(model->ids);
    G_OBJECT_CLASS(cp_photo_list_model_parent_class)->finalize(object);
}

static void cp_photo_list_model_class_init(CpPhotoListModelClass *klass) {
    G_OBJECT_CLASS(klass)->finalize = cp_photo_list_model_finalize;
}

static void cp_photo_list_model_init(CpPhotoListModel *model) {
    model->ids = g_array_new(FALSE, FALSE, sizeof(guint64));
    model->alive = g_hash_table_new(g_int64_hash, g_int64_equal);
}

void *cp_photo_list_model_new(void) {
    return g_object_new(CP_TYPE_PHOTO_LIST_MODEL, NULL);
}

void cp_photo_list_model_splice(void *list, unsigned position, unsigned removed, const uint64_t *ids,
                                unsigned added) {
    g_return_if_fail(CP_IS_PHOTO_LIST_MODEL(list));
    CpPhotoListModel *model = CP_PHOTO_LIST_MODEL(list);
    g_return_if_fail(position <= model->ids->len && removed <= model->ids->len - position);
    if (removed > 0)
        g_array_remove_range(model->ids, position, removed);
    if (added > 0)
        g_array_insert_vals(model->ids, position, ids, added);
    if (removed > 0 || added > 0)
        g_list_model_items_changed(G_LIST_MODEL(model), position, removed, added);
}

void cp_photo_list_model_reorder(void *list, unsigned position, const uint64_t *ids, unsigned count, int in_place) {
    g_return_if_fail(CP_IS_PHOTO_LIST_MODEL(list));
    CpPhotoListModel *model = CP_PHOTO_LIST_MODEL(list);
    g_return_if_fail(position <= model->ids->len && count <= model->ids->len - position);
    if (count == 0)
        return;
    guint64 *rows = &g_array_index(model->ids, guint64, position);
    if (in_place) {
        /* The run holds the same identities before and after, so every item alive for one of
         * them is found at its old position and given the identity at that position: no two
         * items ever stand for one photo. Taken out of the table first (each is keyed by its
         * own identity), put back once all have their new ones. */
        GPtrArray *moved = g_ptr_array_new();
        for (unsigned i = 0; i < count; i++) {
            if (rows[i] == ids[i])
                continue;
            CpPhotoItem *item = g_hash_table_lookup(model->alive, &rows[i]);
            if (item == NULL)
                continue;
            g_hash_table_steal(model->alive, &item->id);
            item->id = ids[i];
            g_ptr_array_add(moved, item);
        }
        for (guint i = 0; i < moved->len; i++) {
            CpPhotoItem *item = g_ptr_array_index(moved, i);
            g_hash_table_insert(model->alive, &item->id, item);
        }
        g_ptr_array_unref(moved);
    }
    memcpy(rows, ids, count * sizeof(guint64));
    g_list_model_items_changed(G_LIST_MODEL(model), position, count, count);
}

uint64_t cp_photo_list_model_get_id(void *list, unsigned position) {
    g_return_val_if_fail(CP_IS_PHOTO_LIST_MODEL(list), 0);
    CpPhotoListModel *model = CP_PHOTO_LIST_MODEL(list);
    return position < model->ids->len ? g_array_index(model->ids, guint64, position) : 0;
}
