/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 */

#define G_LOG_DOMAIN "km-format"

#include "config.h"

#include <math.h>
#include <string.h>
#include <glib/gi18n-lib.h>

#include "km-model-keep.h"

#include "km-error.h"
#include "km-format.h"
#include "km-shape.h"

/* ---- A scan of a well-formed XML text ---------------------------------------------- */

static void
clear_element (gpointer data)
{
  g_free (((KmKeepElement *) data)->name);
}

/* The offset just past @needle at or after @from, or 0 when there is none. */
static gsize
past (const char *text,
      gsize       length,
      gsize       from,
      const char *needle)
{
  gsize n = strlen (needle);

  for (gsize i = from; i + n <= length; i++)
    if (memcmp (text + i, needle, n) == 0)
      return i + n;
  return 0;
}

/* One past the '>' that closes the tag or declaration starting at @from, skipping quoted
 * values (an attribute value may hold a '>') and a DOCTYPE's internal subset; 0: none. */
static gsize
tag_end (const char *text,
         gsize       length,
         gsize       from)
{
  char quote = 0;
  int brackets = 0;

  for (gsize i = from; i < length; i++)
    {
      char c = text[i];

      if (quote != 0)
        quote = c == quote ? 0 : quote;
      else if (c == '"' || c == '\'')
        quote = c;
      else if (c == '[')
        brackets++;
      else if (c == ']')
        brackets--;
      else if (c == '>' && brackets <= 0)
        return i + 1;
    }
  return 0;
}

/**
 * km_keep_xml_scan:
 *
 * Comments, CDATA sections, processing instructions and the DOCTYPE are skipped. Meant
 * for a text a GMarkup reader has accepted (a model the loader read): it checks only what
 * it needs, the nesting of tags.
 *
 * Returns: (transfer full) (element-type KmKeepElement) (nullable): the elements
 */
GArray *
km_keep_xml_scan (const char *text,
                  gsize       length)
{
  g_autoptr(GArray) elements = g_array_new (FALSE, TRUE, sizeof (KmKeepElement));
  g_autoptr(GArray) open = g_array_new (FALSE, FALSE, sizeof (int));
  gsize i = 0;

  g_array_set_clear_func (elements, clear_element);
  while (i < length)
    {
      gsize next = 0;

      if (text[i] != '<')
        {
          i++;
          continue;
        }
      if (g_str_has_prefix (text + i, "<!--"))
        next = past (text, length, i + 4, "-->");
      else if (g_str_has_prefix (text + i, "<![CDATA["))
        next = past (text, length, i + 9, "]]>");
      else if (g_str_has_prefix (text + i, "<?"))
        next = past (text, length, i + 2, "?>");
      else if (g_str_has_prefix (text + i, "<!"))
        next = tag_end (text, length, i + 2);
      else if (text[i + 1] == '/')
        {
          KmKeepElement *element;
          gsize name_length = strcspn (text + i + 2, " \t\r\n>");

          next = tag_end (text, length, i + 2);
          if (next == 0 || open->len == 0)
            return NULL;
          element = &g_array_index (elements, KmKeepElement,
                                    g_array_index (open, int, open->len - 1));
          if (strlen (element->name) != name_length
              || memcmp (element->name, text + i + 2, name_length) != 0)
            return NULL;
          element->content_end = i;
          element->end = next;
          g_array_set_size (open, open->len - 1);
        }
      else
        {
          KmKeepElement element = { 0 };
          gsize name_length = strcspn (text + i + 1, " \t\r\n/>");
          int index = (int) elements->len;

          next = tag_end (text, length, i + 1);
          if (next == 0 || name_length == 0)
            return NULL;
          element.name = g_strndup (text + i + 1, name_length);
          element.start = i;
          element.start_end = next;
          element.parent = open->len > 0 ? g_array_index (open, int, open->len - 1) : -1;
          element.depth = open->len;
          if (text[next - 2] == '/')
            element.content_end = element.end = next;
          else
            g_array_append_val (open, index);
          g_array_append_val (elements, element);
        }
      if (next == 0)
        return NULL;
      i = next;
    }
  if (open->len > 0)
    return NULL;
  return g_steal_pointer (&elements);
}

/* @text[@start, @end) with the five named entities and character references decoded. */
static char *
decode (const char *text,
        gsize       start,
        gsize       end)
{
  static const struct { const char *entity; char c; } named[] = {
    { "&lt;", '<' }, { "&gt;", '>' }, { "&amp;", '&' }, { "&quot;", '"' }, { "&apos;", '\'' },
  };
  GString *out = g_string_sized_new (end - start);

  for (gsize i = start; i < end; )
    {
      gboolean done = FALSE;

      if (text[i] == '&' && i + 2 < end && text[i + 1] == '#')
        {
          gboolean hex = text[i + 2] == 'x';
          char *stop = NULL;
          guint64 c = g_ascii_strtoull (text + i + (hex ? 3 : 2), &stop, hex ? 16 : 10);

          if (stop != NULL && *stop == ';' && (gsize) (stop - text) < end && c > 0
              && c <= 0x10FFFF)
            {
              g_string_append_unichar (out, (gunichar) c);
              i = (gsize) (stop - text) + 1;
              done = TRUE;
            }
        }
      for (guint k = 0; !done && text[i] == '&' && k < G_N_ELEMENTS (named); k++)
        if (strncmp (text + i, named[k].entity, strlen (named[k].entity)) == 0)
          {
            g_string_append_c (out, named[k].c);
            i += strlen (named[k].entity);
            done = TRUE;
          }
      if (!done)
        g_string_append_c (out, text[i++]);
    }
  return g_string_free (out, FALSE);
}

char *
km_keep_xml_attr (const char          *text,
                  const KmKeepElement *element,
                  const char          *name,
                  gsize               *value_start,
                  gsize               *value_end)
{
  gsize i = element->start + 1 + strlen (element->name);
  gsize end = element->start_end - 1;

  while (i < end)
    {
      gsize name_start, name_end;
      char quote;
      const char *close;

      while (i < end && g_ascii_isspace (text[i]))
        i++;
      name_start = i;
      while (i < end && text[i] != '=' && !g_ascii_isspace (text[i]) && text[i] != '/')
        i++;
      name_end = i;
      while (i < end && (g_ascii_isspace (text[i]) || text[i] == '='))
        i++;
      if (i >= end || (text[i] != '"' && text[i] != '\''))
        return NULL;
      quote = text[i++];
      close = memchr (text + i, quote, end - i);
      if (close == NULL)
        return NULL;
      if (name_end - name_start == strlen (name)
          && memcmp (text + name_start, name, name_end - name_start) == 0)
        {
          if (value_start != NULL)
            *value_start = i;
          if (value_end != NULL)
            *value_end = (gsize) (close - text);
          return decode (text, i, (gsize) (close - text));
        }
      i = (gsize) (close - text) + 1;
    }
  return NULL;
}

/* ---- Splices ----------------------------------------------------------------------- */

typedef struct
{
  gsize  start;
  gsize  end;
  guint  order;
  char  *text;
} Splice;

struct _KmKeepSplices
{
  GArray *list;
};

static void
clear_splice (gpointer data)
{
  g_free (((Splice *) data)->text);
}

KmKeepSplices *
km_keep_splices_new (void)
{
  KmKeepSplices *self = g_new0 (KmKeepSplices, 1);

  self->list = g_array_new (FALSE, TRUE, sizeof (Splice));
  g_array_set_clear_func (self->list, clear_splice);
  return self;
}

void
km_keep_splices_free (KmKeepSplices *splices)
{
  if (splices == NULL)
    return;
  g_array_unref (splices->list);
  g_free (splices);
}

void
km_keep_splice (KmKeepSplices *splices,
                gsize          start,
                gsize          end,
                const char    *replacement)
{
  Splice s = { start, end, splices->list->len, g_strdup (replacement) };

  g_array_append_val (splices->list, s);
}

void
km_keep_splice_lines (KmKeepSplices *splices,
                      const char    *text,
                      gsize          length,
                      gsize          start,
                      gsize          end)
{
  gsize s = start, e = end;

  while (s > 0 && (text[s - 1] == ' ' || text[s - 1] == '\t'))
    s--;
  while (e < length && (text[e] == ' ' || text[e] == '\t' || text[e] == '\r'))
    e++;
  if ((s == 0 || text[s - 1] == '\n') && (e == length || text[e] == '\n'))
    km_keep_splice (splices, s, e < length ? e + 1 : e, "");
  else
    km_keep_splice (splices, start, end, "");
}

static int
compare_splices (gconstpointer a,
                 gconstpointer b)
{
  const Splice *x = a, *y = b;

  if (x->start != y->start)
    return x->start < y->start ? -1 : 1;
  /* An insertion before a replacement at the same place. */
  if ((x->end == x->start) != (y->end == y->start))
    return x->end == x->start ? -1 : 1;
  return x->order < y->order ? -1 : x->order > y->order ? 1 : 0;
}

char *
km_keep_splices_apply (KmKeepSplices *splices,
                       const char    *text,
                       gsize          length)
{
  GString *out = g_string_sized_new (length + 256);
  gsize at = 0;

  g_array_sort (splices->list, compare_splices);
  for (guint k = 0; k < splices->list->len; k++)
    {
      const Splice *s = &g_array_index (splices->list, Splice, k);

      if (s->start < at || s->end < s->start || s->end > length)
        {
          g_string_free (out, TRUE);
          return NULL;
        }
      g_string_append_len (out, text + at, (gssize) (s->start - at));
      g_string_append (out, s->text);
      at = s->end;
    }
  g_string_append_len (out, text + at, (gssize) (length - at));
  return g_string_free (out, FALSE);
}

/* ---- References and checks --------------------------------------------------------- */

char *
km_keep_moved_uri (const char *uri,
                   const char *original,
                   const char *path)
{
  g_autofree char *from_dir = g_path_get_dirname (original);
  g_autofree char *to_dir = g_path_get_dirname (path);
  g_autofree char *from = g_canonicalize_filename (from_dir, NULL);
  g_autofree char *to = g_canonicalize_filename (to_dir, NULL);
  g_autofree char *file = NULL;
  char *relative;

  if (g_str_equal (from, to) || uri[0] == '\0')
    return NULL;
  if (g_str_has_prefix (uri, "package://"))
    {
      g_autofree char *found = km_package_uri_resolve (uri, original, NULL, NULL);
      g_autofree char *there = km_package_uri_resolve (uri, path, NULL, NULL);

      if (found == NULL)
        return NULL;   /* not found from the original either: as written */
      file = g_canonicalize_filename (found, NULL);
      if (there != NULL)
        {
          g_autofree char *same = g_canonicalize_filename (there, NULL);

          if (g_str_equal (same, file))
            return NULL;
        }
    }
  else if (strstr (uri, "://") != NULL || uri[0] == '$' || g_path_is_absolute (uri))
    return NULL;   /* a URL, a Choreonoid ${SHARE} path or an absolute one leads there still */
  else
    file = g_canonicalize_filename (uri, from);
  relative = km_path_climbing (to, file, 1, NULL);
  return relative != NULL ? relative : g_strdup (file);
}

static gboolean
near (double a,
      double b)
{
  if (!isfinite (a) || !isfinite (b))
    return a == b;
  return fabs (a - b) <= 1e-9 * MAX (1.0, fabs (a));
}

gboolean
km_keep_same_kinematics (const KmSkeleton  *a,
                         const KmSkeleton  *b,
                         gboolean           ids,
                         char             **why)
{
  guint n = km_skeleton_get_n_joints (a);

  if (n != km_skeleton_get_n_joints (b))
    {
      *why = g_strdup_printf (_("%u joints, not %u"), km_skeleton_get_n_joints (b), n);
      return FALSE;
    }
  for (guint i = 0; i < n; i++)
    {
      const KmJoint *x = km_skeleton_get_joint (a, i);
      int k = km_skeleton_find_joint (b, x->name);
      const KmJoint *y = k >= 0 ? km_skeleton_get_joint (b, (guint) k) : NULL;
      gboolean same;

      if (y == NULL)
        {
          *why = g_strdup_printf (_("no joint “%s”"), x->name);
          return FALSE;
        }
      same = x->type == y->type && x->n_dof == y->n_dof
             && g_strcmp0 (km_joint_get_link_name (x), km_joint_get_link_name (y)) == 0
             && (x->parent < 0) == (y->parent < 0)
             && (x->parent < 0 || g_str_equal (km_skeleton_get_joint (a, (guint) x->parent)->name,
                                               km_skeleton_get_joint (b, (guint) y->parent)->name))
             && km_vec3_length (km_vec3_sub (x->offset, y->offset)) <= 1e-9
             && km_quat_angle_between (x->rotation, y->rotation) <= 1e-9
             && (ids ? x->joint_id == y->joint_id : TRUE)
             && (x->mimic < 0) == (y->mimic < 0)
             && (x->mimic < 0 || (g_str_equal (km_skeleton_get_joint (a, (guint) x->mimic)->name,
                                               km_skeleton_get_joint (b, (guint) y->mimic)->name)
                                  && near (x->mimic_ratio, y->mimic_ratio)
                                  && near (x->mimic_offset, y->mimic_offset)));
      if (same && (x->type == KM_JOINT_REVOLUTE || x->type == KM_JOINT_PRISMATIC))
        same = km_vec3_length (km_vec3_sub (x->axis, y->axis)) <= 1e-9;
      for (guint d = 0; same && d < x->n_dof && d < 3; d++)
        same = x->limits[d].limited == y->limits[d].limited
               && (!x->limits[d].limited || (near (x->limits[d].min, y->limits[d].min)
                                             && near (x->limits[d].max, y->limits[d].max)));
      if (!same)
        {
          *why = g_strdup_printf (_("joint “%s” reads back otherwise"), x->name);
          return FALSE;
        }
    }
  /* The end effector a file reads with is where its joints are (the last leaf): one
   * written over another file may read with another one. */
  if (!g_str_equal (km_skeleton_get_joint (a, (guint) km_skeleton_get_default_effector (a))->name,
                    km_skeleton_get_joint (b, (guint) km_skeleton_get_default_effector (b))->name))
    {
      *why = g_strdup (_("it reads back with another end effector"));
      return FALSE;
    }
  return TRUE;
}

void
km_keep_note_lost (GPtrArray  *notes,
                   const char *original,
                   const char *reason,
                   const char *lost)
{
  g_autofree char *base = g_path_get_basename (original);
  /* As every message shows a file name (km_parse_shown_file()). */
  g_autofree char *name = km_parse_shown_file (base);

  km_format_note (notes,
                  /* Translators: a file name, a reason, then a list of what is lost */
                  _("the model “%s” could not be written over (%s): the skeleton is written "
                    "alone, so the %s of “%s” are not carried over"),
                  name, reason, lost, name);
}
