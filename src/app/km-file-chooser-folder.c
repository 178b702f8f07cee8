/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 */

#include "config.h"

#include "km-file-chooser-folder.h"

/* A folder that is gone would leave the dialog with an error and no folder at all. */
static GFile *
existing_folder (GFile *folder)
{
  if (folder == NULL
      || g_file_query_file_type (folder, G_FILE_QUERY_INFO_NONE, NULL) != G_FILE_TYPE_DIRECTORY)
    {
      g_clear_object (&folder);
      return NULL;
    }
  return folder;
}

/* The folder of the file @item was read from or saved to (as its project resolves the
 * reference), or NULL. */
static GFile *
item_folder (KmDocument *document,
             KmItem     *item)
{
  g_auto(KmDocumentItemIo) io = { 0 };
  g_autofree char *path = NULL;
  g_autofree char *dir = NULL;
  const char *reference;

  /* The built-in example's "skeleton.json" is its embedded model, in no folder. */
  if (g_object_get_data (G_OBJECT (item), "km-embedded-model") != NULL)
    return NULL;
  reference = km_item_get_file (item);
  if (reference == NULL || *reference == '\0')
    return NULL;
  km_document_item_io_init (document, &io);
  path = km_item_io_expand_path (&io.io, reference, NULL);
  if (path == NULL)
    return NULL;
  dir = g_path_get_dirname (path);
  return existing_folder (g_file_new_for_path (dir));
}

/* The folder of the first item under @item, in the tree's order, that has one. */
static GFile *
first_item_folder (KmDocument *document,
                   KmItem     *item)
{
  GFile *folder = item_folder (document, item);

  for (guint i = 0; folder == NULL && i < km_item_get_n_children (item); i++)
    folder = first_item_folder (document, km_item_get_child (item, i));
  return folder;
}

GFile *
km_file_chooser_folder_for_project (KmDocument *document)
{
  GFile *file;
  KmItem *root;

  g_return_val_if_fail (KM_IS_DOCUMENT (document), NULL);

  file = km_document_get_file (document);
  if (file != NULL)
    return existing_folder (g_file_get_parent (file));
  /* A project never saved, made by opening a model: where that model is, which is where
   * users put the project that animates it. */
  root = km_project_get_root_item (km_document_get_project (document));
  return root != NULL ? first_item_folder (document, root) : NULL;
}

GFile *
km_file_chooser_folder_for_item (KmDocument *document,
                                 KmItem     *item)
{
  GFile *folder = NULL;

  g_return_val_if_fail (KM_IS_DOCUMENT (document), NULL);
  g_return_val_if_fail (item == NULL || KM_IS_ITEM (item), NULL);

  if (item != NULL)
    folder = item_folder (document, item);
  if (folder == NULL)
    folder = km_file_chooser_folder_for_project (document);
  return folder;
}

GFile *
km_file_chooser_folder_for_open (KmDocument *document,
                                 GFile      *last_folder)
{
  GFile *folder;

  g_return_val_if_fail (KM_IS_DOCUMENT (document), NULL);
  g_return_val_if_fail (last_folder == NULL || G_IS_FILE (last_folder), NULL);

  folder = km_file_chooser_folder_for_project (document);
  if (folder == NULL && last_folder != NULL)
    folder = existing_folder (g_object_ref (last_folder));
  return folder;
}
