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

GFile *
km_file_chooser_folder_for_project (KmDocument *document)
{
  GFile *file;

  g_return_val_if_fail (KM_IS_DOCUMENT (document), NULL);

  file = km_document_get_file (document);
  return existing_folder (file != NULL ? g_file_get_parent (file) : NULL);
}

GFile *
km_file_chooser_folder_for_item (KmDocument *document,
                                 KmItem     *item)
{
  const char *reference;
  GFile *folder = NULL;

  g_return_val_if_fail (KM_IS_DOCUMENT (document), NULL);
  g_return_val_if_fail (item == NULL || KM_IS_ITEM (item), NULL);

  /* The built-in example's "skeleton.json" is its embedded model, in no folder. */
  reference = item != NULL && g_object_get_data (G_OBJECT (item), "km-embedded-model") == NULL
              ? km_item_get_file (item) : NULL;
  if (reference != NULL && *reference != '\0')
    {
      g_auto(KmDocumentItemIo) io = { 0 };
      g_autofree char *path = NULL;

      km_document_item_io_init (document, &io);
      path = km_item_io_expand_path (&io.io, reference, NULL);
      if (path != NULL)
        {
          g_autofree char *dir = g_path_get_dirname (path);

          folder = existing_folder (g_file_new_for_path (dir));
        }
    }
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
