/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 */

#define G_LOG_DOMAIN "km-scenebuilder"

#include "config.h"

#include <math.h>
#include <string.h>
#include <glib/gi18n-lib.h>

#include "km-scenebuilder.h"

#include "km-error.h"
#include "km-format.h"
#include "km-markup-text.h"
#include "km-sb-expr.h"
#include "km-shape.h"
#include "km-skeleton-json.h"
#include "km-target-track.h"

#define MAX_STEPS       1000000   /* elements processed, imports and loops included */
#define MAX_VALUE_BYTES 65536     /* an attribute after $var substitution */

/* ------------------------------------------------------------------------------------------ */
/* The XML document, with the position of every element and attribute value                   */

typedef struct _SbFile SbFile;
typedef struct _Node Node;

struct _Node
{
  char        *name;
  char       **attr_names;
  char       **attr_values;
  KmSourcePos *attr_pos;
  /* the offset in the file of each value's first character (km_markup_text_value_offset()
   * finds its characters), G_MAXSIZE where the value was not found */
  gsize       *attr_starts;
  guint        n_attrs;
  KmSourcePos  pos;          /* the '<' */
  Node        *parent;
  GPtrArray   *children;
  SbFile      *file;
};

struct _SbFile
{
  char   *path;      /* as given / as the user would name it (km_parse_included_path) */
  char   *data;      /* BOM stripped */
  gsize   length;
  KmMarkupText markup;  /* data's lines and start tags, for positions */
  Node   *root;
  /* "\nincluded from FILE:LINE:COLUMN" lines from the import that read this file out to
   * the scene (import_sites_text), NULL for the scene itself: every warning in the file
   * ends with them, as errors do (DESIGN.md, "Error locations"). A file imported twice is
   * read twice, so one file has one chain. */
  char   *included_from;
};

typedef struct
{
  SbFile *file;
  Node   *current;
  guint   depth;
  guint   n_nodes;
  gboolean limit;
} ParseState;

static void
node_free (Node *node)
{
  if (node == NULL)
    return;
  g_free (node->name);
  g_strfreev (node->attr_names);
  g_strfreev (node->attr_values);
  g_free (node->attr_pos);
  g_free (node->attr_starts);
  g_clear_pointer (&node->children, g_ptr_array_unref);
  g_free (node);
}

static void
sb_file_free (SbFile *file)
{
  g_free (file->path);
  g_free (file->data);
  g_free (file->included_from);
  km_markup_text_clear (&file->markup);
  node_free (file->root);
  g_free (file);
}

static gsize
skip_past (const char *data,
           gsize       length,
           gsize       p,
           const char *end)
{
  gsize n = strlen (end);

  for (; p + n <= length; p++)
    if (memcmp (data + p, end, n) == 0)
      return p + n;
  return length;
}

/*
 * GMarkup gives no positions of attribute values, so the start tags are found again in the
 * text: start_element is called in document order, after GMarkup has checked the tag, so
 * the next start tag after the cursor is the one being reported.
 */
static void
locate_tag (ParseState *st,
            Node       *node,
            gsize       p)
{
  const char *d = st->file->data;
  gsize len = st->file->length;
  guint attr = 0;

  node->pos = km_markup_text_pos (&st->file->markup, p);
  for (guint i = 0; i < node->n_attrs; i++)
    {
      node->attr_pos[i] = node->pos;
      node->attr_starts[i] = G_MAXSIZE;
    }
  if (p >= len)
    return;
  p++;
  while (p < len && !g_ascii_isspace (d[p]) && d[p] != '>' && d[p] != '/')
    p++;
  while (p < len)
    {
      gsize name_start, value_start;
      char quote;

      while (p < len && g_ascii_isspace (d[p]))
        p++;
      if (p >= len || d[p] == '>' || d[p] == '/')
        break;
      name_start = p;
      while (p < len && d[p] != '=' && !g_ascii_isspace (d[p]))
        p++;
      while (p < len && d[p] != '"' && d[p] != '\'')
        p++;
      if (p >= len)
        break;
      quote = d[p++];
      value_start = p;
      while (p < len && d[p] != quote)
        p++;
      if (attr < node->n_attrs && strncmp (d + name_start, node->attr_names[attr],
                                           strlen (node->attr_names[attr])) == 0)
        {
          node->attr_pos[attr] = km_markup_text_pos (&st->file->markup, value_start);
          node->attr_starts[attr] = value_start;
        }
      attr++;
      p++;
    }
}

static void
markup_start (GMarkupParseContext  *context,
              const char           *element_name,
              const char          **attribute_names,
              const char          **attribute_values,
              gpointer              user_data,
              GError              **error)
{
  ParseState *st = user_data;
  Node *node;
  /* (an attribute given twice is refused, KM_PARSE_ERROR, as in every XML reader) */
  gsize tag = km_markup_text_start_element (&st->file->markup, st->file->path,
                                            attribute_names, error);

  if (*error != NULL)
    return;
  if (++st->depth > KM_SCENEBUILDER_MAX_DEPTH || ++st->n_nodes > KM_SCENEBUILDER_MAX_OBJECTS)
    {
      st->limit = TRUE;
      g_set_error (error, G_MARKUP_ERROR, G_MARKUP_ERROR_INVALID_CONTENT,
                   st->depth > KM_SCENEBUILDER_MAX_DEPTH
                   ? _("elements nested too deeply (at most %d levels)")
                   : _("too many elements (at most %d)"),
                   st->depth > KM_SCENEBUILDER_MAX_DEPTH ? KM_SCENEBUILDER_MAX_DEPTH
                                                         : KM_SCENEBUILDER_MAX_OBJECTS);
      return;
    }
  if (st->current == NULL && st->file->root != NULL)
    {
      /* GMarkup reports content after the document element only at its end. */
      g_set_error (error, G_MARKUP_ERROR, G_MARKUP_ERROR_INVALID_CONTENT,
                   _("a second document element <%s> after the first one ended"),
                   element_name);
      return;
    }
  node = g_new0 (Node, 1);
  node->name = g_strdup (element_name);
  node->attr_names = g_strdupv ((char **) attribute_names);
  node->attr_values = g_strdupv ((char **) attribute_values);
  node->n_attrs = g_strv_length (node->attr_names);
  node->attr_pos = g_new0 (KmSourcePos, node->n_attrs);
  node->attr_starts = g_new0 (gsize, node->n_attrs);
  node->children = g_ptr_array_new_with_free_func ((GDestroyNotify) node_free);
  node->file = st->file;
  node->parent = st->current;
  locate_tag (st, node, tag);
  if (st->current)
    g_ptr_array_add (st->current->children, node);
  else
    st->file->root = node;
  st->current = node;
}

static void
markup_end (GMarkupParseContext  *context,
            const char           *element_name,
            gpointer              user_data,
            GError              **error)
{
  ParseState *st = user_data;

  st->depth--;
  if (st->current)
    st->current = st->current->parent;
}

static const GMarkupParser markup_parser = { markup_start, markup_end, NULL, NULL, NULL };

/* Takes @data (the file as read). */
static SbFile *
parse_document (const char  *path,
                const char  *data,
                gsize        length,
                GError     **error)
{
  g_autoptr(GMarkupParseContext) context = NULL;
  g_autoptr(GError) local = NULL;
  SbFile *file;
  ParseState st = { 0 };

  if (length > KM_SCENEBUILDER_MAX_SIZE)
    {
      km_parse_error_set (error, KM_PARSE_ERROR_LIMIT, path, (KmSourcePos) { 0, 0 },
                          _("the file is larger than %u MiB"),
                          (guint) (KM_SCENEBUILDER_MAX_SIZE / (1024 * 1024)));
      return NULL;
    }
  /* GMarkup rejects a byte-order mark; it is not a column either. */
  if (length >= 3 && memcmp (data, "\xef\xbb\xbf", 3) == 0)
    {
      data += 3;
      length -= 3;
    }
  file = g_new0 (SbFile, 1);
  file->path = g_strdup (path);
  file->data = g_strndup (data, length);
  file->length = strlen (file->data);
  km_markup_text_init (&file->markup, file->data, file->length);
  if (file->length != length)
    {
      km_parse_error_set (error, KM_PARSE_ERROR_SYNTAX, path,
                          km_markup_text_pos (&file->markup, file->length),
                          _("the file contains a NUL byte"));
      sb_file_free (file);
      return NULL;
    }

  if (!km_markup_text_check_prolog (&file->markup, path, error))
    {
      sb_file_free (file);
      return NULL;
    }

  st.file = file;
  context = g_markup_parse_context_new (&markup_parser, G_MARKUP_TREAT_CDATA_AS_TEXT, &st, NULL);
  if (!g_markup_parse_context_parse (context, file->data, file->length, &local) ||
      !g_markup_parse_context_end_parse (context, &local))
    {
      KmSourcePos pos;
      g_autofree char *explained = NULL;
      gboolean not_well_formed;
      g_autofree char *message = NULL;

      if (local->domain == KM_PARSE_ERROR)
        {
          /* a callback's own, with its location (km_markup_text_start_element()) */
          g_propagate_error (error, g_steal_pointer (&local));
          sb_file_free (file);
          return NULL;
        }
      explained = km_markup_text_explain_gmarkup_error (&file->markup, context, local, &pos);
      /* GMarkup's own errors (the callbacks' are G_MARKUP_ERROR_INVALID_CONTENT) say what
       * was expected as the URDF reader's do (km_markup_text_parse()). */
      not_well_formed = explained == NULL &&
                        !g_error_matches (local, G_MARKUP_ERROR, G_MARKUP_ERROR_INVALID_CONTENT);
      /* Else GMarkup's message, without its own "Error on line N char M: " prefix and with
       * the names it quotes escaped. */
      message = explained != NULL ? g_steal_pointer (&explained)
                                  : km_markup_text_gmarkup_message (local->message);

      if (not_well_formed)
        km_parse_error_set (error, KM_PARSE_ERROR_SYNTAX, path, pos,
                            _("expected well-formed XML: %s"), message);
      else
        km_parse_error_set (error, st.limit ? KM_PARSE_ERROR_LIMIT : KM_PARSE_ERROR_SYNTAX,
                            path, pos, "%s", message);
      sb_file_free (file);
      return NULL;
    }
  if (file->root == NULL)
    {
      km_parse_error_set (error, KM_PARSE_ERROR_SYNTAX, path, (KmSourcePos) { 1, 1 },
                          _("expected an XML document element"));
      sb_file_free (file);
      return NULL;
    }
  return file;
}

static const char *
node_attr (const Node *node,
           const char *name,
           guint      *index)
{
  for (guint i = 0; i < node->n_attrs; i++)
    if (g_str_equal (node->attr_names[i], name))
      {
        if (index)
          *index = i;
        return node->attr_values[i];
      }
  return NULL;
}

/* ------------------------------------------------------------------------------------------ */
/* The scene: objects as Scenebuilder's Builder creates them                                  */

typedef enum
{
  OBJ_ROOT,
  OBJ_NAMESPACE,
  OBJ_BODY,
  OBJ_CONNECTOR,
  OBJ_HINGE,
  OBJ_SLIDER,
  OBJ_BALLJOINT,
  OBJ_FIXJOINT,
  OBJ_UNIVERSALJOINT,
  OBJ_FREEJOINT,
  OBJ_GEAR,
  OBJ_IK,
  OBJ_ATTACH,
  OBJ_BOX,
  OBJ_SPHERE,
  OBJ_CYLINDER,
  OBJ_CAPSULE,
  OBJ_MESH,
  OBJ_VMAT,
  OBJ_SKIPPED,   /* known to Scenebuilder, not needed for a kinematic tree */
} ObjType;

static const struct
{
  const char *name;
  ObjType     type;
} object_types[] = {
  { "namespace", OBJ_NAMESPACE }, { "body", OBJ_BODY }, { "connector", OBJ_CONNECTOR },
  { "hinge", OBJ_HINGE }, { "slider", OBJ_SLIDER }, { "balljoint", OBJ_BALLJOINT },
  { "fixjoint", OBJ_FIXJOINT }, { "universaljoint", OBJ_UNIVERSALJOINT },
  { "freejoint", OBJ_FREEJOINT }, { "gear", OBJ_GEAR }, { "ik", OBJ_IK },
  { "attach", OBJ_ATTACH }, { "box", OBJ_BOX }, { "sphere", OBJ_SPHERE },
  { "cylinder", OBJ_CYLINDER }, { "capsule", OBJ_CAPSULE }, { "mesh", OBJ_MESH },
  { "vmat", OBJ_VMAT },
  { "pmat", OBJ_SKIPPED }, { "light", OBJ_SKIPPED }, { "camera", OBJ_SKIPPED },
  { "gravity", OBJ_SKIPPED }, { "contact_group", OBJ_SKIPPED }, { "spring", OBJ_SKIPPED },
  { "point_to_point", OBJ_SKIPPED }, { "point_to_line", OBJ_SKIPPED },
  { "point_to_plane", OBJ_SKIPPED }, { "line_to_line", OBJ_SKIPPED },
  { "plane_to_plane", OBJ_SKIPPED }, { "distance", OBJ_SKIPPED },
  { "conic_limit", OBJ_SKIPPED }, { "ikjoint", OBJ_SKIPPED }, { "iksync", OBJ_SKIPPED },
  { "ikcom", OBJ_SKIPPED }, { "motor", OBJ_SKIPPED }, { "joint_sensor", OBJ_SKIPPED },
  { "force_sensor", OBJ_SKIPPED }, { "inertia_sensor", OBJ_SKIPPED },
  { "proximity_sensor", OBJ_SKIPPED }, { "lidar_sensor", OBJ_SKIPPED },
};

typedef struct _Obj Obj;

typedef struct
{
  char        *name;
  Obj         *target;
  SbFile      *file;
  KmSourcePos  pos;
} Link;

struct _Obj
{
  ObjType      type;
  const char  *type_name;
  char        *name;
  Obj         *parent;
  GPtrArray   *children;    /* Obj, owned */
  GPtrArray   *links;       /* Link, owned */
  /* Indexes that keep name look-ups constant-time (NULL until the first name): */
  GHashTable  *child_names; /* name (borrowed) → Obj */
  GHashTable  *link_names;  /* name (borrowed) → Link */
  GHashTable  *suffixes;    /* base name (owned) → the next numbered suffix to try */
  Node        *node;        /* the element (the <import> for import namespaces) */
  guint        index;       /* creation order */
  gboolean     spatial;
  KmTransform  local;

  /* body */
  gboolean     given_trn;   /* a valid trn written (own or <attr>): its position is stated */
  gboolean     given_rot;   /* a valid rot written: its orientation is stated */
  double       mass;
  gboolean     dynamical;
  gboolean     stationary;
  gboolean     auto_tree;
  /* joints */
  gboolean     enabled;
  double       range[2];
  double       vrange[2];
  double       flim;
  double       pos[2];
  KmQuat       ball_pos;
  /* gear */
  double       ratio;
  double       offset;
  gboolean     gear_position;
  /* ik */
  gboolean     enable_trn;
  gboolean     enable_rot;
  /* shapes and vmat */
  KmVec3       size;
  double       radius;
  double       height;
  KmColor      color;
  /* kinematic mapping */
  int          body_index;
  /* left out of the kinematic tree: a reference it needs did not resolve, or (gear) an
   * invalid type; said where that was found */
  gboolean     broken;
};

typedef struct
{
  char        *value;
  SbFile      *file;
  KmSourcePos  pos;
  gsize        start;   /* Node.attr_starts */
} AttrVal;

typedef struct
{
  GHashTable *attrs;   /* name → AttrVal */
  GHashTable *vars;    /* name → value text */
} Ctx;

typedef struct
{
  char        *text;    /* after $var substitution; NULL = absent */
  SbFile      *file;
  KmSourcePos  pos;
  gsize        start;   /* Node.attr_starts */
  /* text is the value GMarkup made of the attribute at start (not substituted), whose
   * offsets km_markup_text_value_offset() maps to the file */
  gboolean     exact;
  gboolean     from_attr;
} Val;

/* An <import filename=…> being expanded: the importing file and the filename's position. */
typedef struct
{
  const char  *path;         /* an SbFile's, which lives as long as the loader */
  KmSourcePos  pos;
} ImportSite;

typedef struct
{
  const char  *path;         /* of the top-level file */
  GPtrArray   *files;        /* SbFile, owned */
  GPtrArray   *contexts;     /* Ctx, owned; the last is the innermost */
  GPtrArray   *import_stack; /* Node (module imports) and SbFile (file imports) being expanded */
  GArray      *import_sites; /* ImportSite: where each file on import_stack was imported */
  GHashTable  *noted;        /* warning keys already reported */
  Obj         *root;
  Obj         *cur;
  KmSbUnits    units;
  gboolean     unit_scoped[4];
  gboolean     unit_leaked[4];  /* for the element being read: its default came from leakage */
  guint        n_objects;
  guint        n_steps;
  gsize        n_import_bytes; /* read by file imports, all together */
  GPtrArray   *objects;      /* every Obj in creation order, borrowed */
} Loader;

static void
link_free (Link *link)
{
  g_free (link->name);
  g_free (link);
}

static void
obj_free (Obj *obj)
{
  g_clear_pointer (&obj->child_names, g_hash_table_unref);
  g_clear_pointer (&obj->link_names, g_hash_table_unref);
  g_clear_pointer (&obj->suffixes, g_hash_table_unref);
  g_free (obj->name);
  g_ptr_array_unref (obj->children);
  g_ptr_array_unref (obj->links);
  g_free (obj);
}

static void
attr_val_free (AttrVal *v)
{
  g_free (v->value);
  g_free (v);
}

static void
ctx_free (Ctx *ctx)
{
  g_hash_table_unref (ctx->attrs);
  g_hash_table_unref (ctx->vars);
  g_free (ctx);
}

static Ctx *
ctx_new (void)
{
  Ctx *ctx = g_new0 (Ctx, 1);

  ctx->attrs = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                      (GDestroyNotify) attr_val_free);
  ctx->vars = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  return ctx;
}

static void
val_clear (Val *v)
{
  g_clear_pointer (&v->text, g_free);
}

static Ctx *
ctx_top (Loader *L)
{
  return g_ptr_array_index (L->contexts, L->contexts->len - 1);
}

/* One warning per key and load. */
G_GNUC_PRINTF (5, 6)
static void
note_once (Loader      *L,
           const char  *key,
           SbFile      *file,
           KmSourcePos  pos,
           const char  *format,
           ...)
{
  g_autofree char *text = NULL;
  va_list args;

  if (key != NULL)
    {
      if (g_hash_table_contains (L->noted, key))
        return;
      g_hash_table_add (L->noted, g_strdup (key));
    }
  va_start (args, format);
  text = g_strdup_vprintf (format, args);
  va_end (args);
  km_parse_warning (file->path, pos, "%s%s", text,
                    file->included_from != NULL ? file->included_from : "");
}

/* The position of the character @offset bytes into a looked-up value: on its own line
 * where the value goes on over several (GMarkup made each line break a space, and a CRLF
 * one), after any references; the value's first character where it was substituted. */
static KmSourcePos
val_pos (const Val *v,
         gsize      offset)
{
  const KmMarkupText *markup = &v->file->markup;

  if (!v->exact || offset > strlen (v->text))
    return v->pos;
  return km_markup_text_pos (markup, km_markup_text_value_offset (markup, v->start, offset));
}

static int
compare_length_desc (gconstpointer a,
                     gconstpointer b)
{
  return (int) strlen (*(const char * const *) b) - (int) strlen (*(const char * const *) a);
}

/* Textual $name substitution with the variables of every context, longest names first. */
static char *
substitute_vars (Loader     *L,
                 const char *text)
{
  g_autoptr(GHashTable) vars = g_hash_table_new (g_str_hash, g_str_equal);
  g_autoptr(GPtrArray) names = g_ptr_array_new ();
  g_autoptr(GString) s = g_string_new (text);
  GHashTableIter iter;
  gpointer key, value;

  for (guint i = 0; i < L->contexts->len; i++)
    {
      Ctx *ctx = g_ptr_array_index (L->contexts, i);

      g_hash_table_iter_init (&iter, ctx->vars);
      while (g_hash_table_iter_next (&iter, &key, &value))
        g_hash_table_insert (vars, key, value);
    }
  g_hash_table_iter_init (&iter, vars);
  while (g_hash_table_iter_next (&iter, &key, NULL))
    g_ptr_array_add (names, key);
  g_ptr_array_sort (names, compare_length_desc);
  for (guint i = 0; i < names->len && s->len <= MAX_VALUE_BYTES; i++)
    {
      g_autofree char *pattern = g_strconcat ("$", names->pdata[i], NULL);

      g_string_replace (s, pattern, g_hash_table_lookup (vars, names->pdata[i]), 0);
    }
  if (s->len > MAX_VALUE_BYTES)
    return NULL;
  return g_string_free (g_steal_pointer (&s), FALSE);
}

/*
 * Scenebuilder's lookup: the element's own non-empty value, else the innermost attr value;
 * an empty result is absent. Returns FALSE only on error.
 */
static gboolean
lookup (Loader      *L,
        Node        *node,
        const char  *name,
        Val         *out,
        GError     **error)
{
  guint index;
  const char *own = node_attr (node, name, &index);
  const char *text = NULL;

  memset (out, 0, sizeof *out);
  if (own != NULL && own[0] != '\0')
    {
      text = own;
      out->file = node->file;
      out->pos = node->attr_pos[index];
      out->start = node->attr_starts[index];
    }
  else
    for (guint i = L->contexts->len; i-- > 0;)
      {
        Ctx *ctx = g_ptr_array_index (L->contexts, i);
        AttrVal *v = g_hash_table_lookup (ctx->attrs, name);

        if (v != NULL)
          {
            text = v->value;
            out->file = v->file;
            out->pos = v->pos;
            out->start = v->start;
            out->from_attr = TRUE;
            break;
          }
      }
  if (text == NULL || text[0] == '\0')
    return TRUE;
  out->exact = out->start != G_MAXSIZE;
  if (strchr (text, '$') != NULL)
    {
      out->text = substitute_vars (L, text);
      if (out->text == NULL)
        {
          km_parse_error_set (error, KM_PARSE_ERROR_LIMIT, out->file->path, out->pos,
                              _("the value of “%s” grows beyond %d bytes after $ substitution"),
                              name, MAX_VALUE_BYTES);
          return FALSE;
        }
      if (!g_str_equal (out->text, text))
        out->exact = FALSE;
    }
  else
    out->text = g_strdup (text);
  return TRUE;
}

/*
 * A bad value (specs/scenebuilder.md 1.7: everything but XML syntax and an unreadable file
 * is reported and the load goes on): a warning at the offending character, and the value is
 * ignored, so the attribute keeps its default (a unit_* keeps the current default unit).
 * Once per value in the file (a module imported many times, a <for> body), however often it
 * is read.
 *
 * An <attr> value applies to every later element with an attribute of that name, whatever
 * its type (1.5: <attr mass="1.0"/> meant for bodies also reaches the boolean "mass" of
 * shapes); where it is invalid for one element type, that is said once per <attr> value and
 * element name.
 */
static void
value_problem (Loader      *L,
               Node        *node,
               const Val   *v,
               const char  *attribute,
               gsize        offset,
               char        *message)
{
  g_autofree char *key = NULL;
  KmSourcePos pos = val_pos (v, offset);

  if (v->from_attr && node != NULL)
    {
      key = g_strdup_printf ("inherited:%s:%u:%u:%s:%s", v->file->path, v->pos.line,
                             v->pos.column, attribute, node->name);
      /* Translators: an attribute name, what is wrong with its value, an element name. */
      note_once (L, key, v->file, pos,
                 _("invalid value of “%s”: %s; the value inherited from <attr> is ignored "
                   "for <%s>"), attribute, message, node->name);
    }
  else
    {
      key = g_strdup_printf ("invalid:%s:%u:%u:%s", v->file->path, v->pos.line,
                             v->pos.column, attribute);
      /* Translators: the first %s is an attribute name, the second what was expected. */
      note_once (L, key, v->file, pos, _("invalid value of “%s”: %s; the value is ignored"),
                 attribute, message);
    }
  g_free (message);
}

/*
 * specs/scenebuilder.md 2.3: a unit inside parentheses does not count as explicit, so with
 * mm as the default "(10mm)" is 10 µm. Read as Scenebuilder does, with a warning where the
 * default scale of the value's dimension is not 1; once per value in the file.
 */
static void
note_parenthesised_unit (Loader    *L,
                         const Val *v,
                         gsize      offset)
{
  KmSourcePos pos = val_pos (v, offset);
  g_autofree char *key = g_strdup_printf ("parenthesised-unit:%s:%u:%u", v->file->path,
                                          pos.line, pos.column);

  note_once (L, key, v->file, pos,
             _("a unit inside parentheses is not explicit in Scenebuilder: with no unit "
               "outside them, the value is scaled by the default unit as well"));
}

static const char * const unit_attributes[] = {
  "unit_length", "unit_rotation", "unit_mass", "unit_time"
};

/* Whether a value of dimension @dim is scaled by default unit @u (length, rotation, mass,
 * time) when it has no unit. */
static gboolean
dim_uses_unit (KmSbDim dim,
               guint   u)
{
  static const char * const uses[] = {
    [KM_SB_DIM_NONE] = "", [KM_SB_DIM_L] = "L", [KM_SB_DIM_R] = "R", [KM_SB_DIM_M] = "M",
    [KM_SB_DIM_L_T] = "LT", [KM_SB_DIM_L_T2] = "LT", [KM_SB_DIM_R_T] = "RT",
    [KM_SB_DIM_R_T2] = "RT", [KM_SB_DIM_ML_T2] = "MLT", [KM_SB_DIM_ML2_T2] = "MLT",
    [KM_SB_DIM_ML2] = "ML", [KM_SB_DIM_M_T] = "MT", [KM_SB_DIM_M_T2] = "MT",
    [KM_SB_DIM_ML2_RT] = "MLRT", [KM_SB_DIM_ML2_RT2] = "MLRT", [KM_SB_DIM_M_L3] = "ML",
  };

  return (guint) dim < G_N_ELEMENTS (uses) && uses[dim] != NULL &&
         strchr (uses[dim], "LRMT"[u]) != NULL;
}

/*
 * specs/scenebuilder.md 1.6: default units are sticky. Where a value of the element being
 * read is converted with a default unit that no unit_* in its scope set (it leaked from an
 * earlier element or file), that is noted once per unit and load, at the value.
 */
static void
note_leaked_unit (Loader    *L,
                  const Val *v,
                  KmSbDim    dim)
{
  for (guint u = 0; u < 4; u++)
    if (L->unit_leaked[u] && dim_uses_unit (dim, u))
      {
        g_autofree char *key = g_strdup_printf ("leak:%s", unit_attributes[u]);

        note_once (L, key, v->file, v->pos,
                   _("the default unit of “%s” is inherited from an earlier scope "
                     "(Scenebuilder behaviour)"), unit_attributes[u]);
      }
}

/*
 * Reads a real. @node is NULL for a unit value (unit_length…): no notes about units then.
 * Returns FALSE for an invalid value (a warning; *@out is unchanged).
 */
static gboolean
trimmed_real (Loader          *L,
              Node            *node,
              const Val       *v,
              const char      *attribute,
              KmSbDim          dim,
              const KmSbUnits *units,
              double          *out)
{
  gsize start = 0, end = strlen (v->text), offset = 0;
  char *message = NULL;
  double value = 0;
  KmSbValueFlags flags = KM_SB_VALUE_OK;

  while (start < end && g_ascii_isspace (v->text[start]))
    start++;
  while (end > start && g_ascii_isspace (v->text[end - 1]))
    end--;
  if (!km_sb_eval_real_full (v->text + start, end - start, dim, units, &value, &flags, &offset,
                             &message))
    {
      value_problem (L, node, v, attribute, start + offset, message);
      return FALSE;
    }
  if ((flags & KM_SB_VALUE_PARENTHESISED_UNIT) && node != NULL)
    note_parenthesised_unit (L, v, start);
  if ((flags & KM_SB_VALUE_DEFAULT_UNIT) && node != NULL)
    note_leaked_unit (L, v, dim);
  *out = value;
  return TRUE;
}

/*
 * The typed getters: *@out keeps its default when the attribute is absent or its value is
 * invalid (a warning). They fail only when a value grows past MAX_VALUE_BYTES.
 */
static gboolean
get_real (Loader      *L,
          Node        *node,
          const char  *name,
          KmSbDim      dim,
          double      *out,
          GError     **error)
{
  Val v;

  if (!lookup (L, node, name, &v, error))
    return FALSE;
  if (v.text == NULL)
    return TRUE;
  trimmed_real (L, node, &v, name, dim, &L->units, out);
  val_clear (&v);
  return TRUE;
}

static gboolean
get_bool (Loader      *L,
          Node        *node,
          const char  *name,
          gboolean    *out,
          GError     **error)
{
  Val v;
  gsize offset = 0;
  char *message = NULL;
  gboolean value = FALSE;

  if (!lookup (L, node, name, &v, error))
    return FALSE;
  if (v.text != NULL && !km_sb_parse_bool (v.text, &value, &offset, &message))
    value_problem (L, node, &v, name, offset, message);
  else if (v.text != NULL)
    *out = value;
  val_clear (&v);
  return TRUE;
}

/*
 * Whether one of the @n values read from @v is larger than @bound in magnitude (a length
 * the skeleton cannot hold, KM_SCENEBUILDER_MAX_LENGTH): then a warning at that component
 * (the only one, when a single value stands for all), and the value is ignored.
 */
static gboolean
out_of_bounds (Loader       *L,
               Node         *node,
               const Val    *v,
               const char   *name,
               const double *values,
               guint         n,
               double        bound)
{
  gsize starts[4] = { 0 };
  guint count = 0;

  g_assert (n <= G_N_ELEMENTS (starts));
  for (guint i = 0; i < n; i++)
    if (fabs (values[i]) > bound)
      {
        for (gsize p = 0; v->text[p] != '\0';)
          {
            while (v->text[p] == ' ' || v->text[p] == '\t')
              p++;
            if (v->text[p] == '\0')
              break;
            if (count < n)
              starts[count] = p;
            count++;
            while (v->text[p] != '\0' && v->text[p] != ' ' && v->text[p] != '\t')
              p++;
          }
        /* Translators: a length in metres such as 1e+100. */
        value_problem (L, node, v, name, starts[count == n ? i : 0],
                       g_strdup_printf (_("expected a length of at most %g m"), bound));
        return TRUE;
      }
  return FALSE;
}

/* A vector; with a finite @bound, components larger than that in magnitude are invalid. */
static gboolean
get_vector (Loader      *L,
            Node        *node,
            const char  *name,
            guint        n,
            KmSbDim      dim,
            double       bound,
            double      *out,
            GError     **error)
{
  Val v;
  gsize offset = 0, unit_offset = 0;
  char *message = NULL;
  KmSbValueFlags flags = KM_SB_VALUE_OK;
  double values[4];

  g_assert (n <= G_N_ELEMENTS (values));
  if (!lookup (L, node, name, &v, error))
    return FALSE;
  if (v.text != NULL &&
      !km_sb_parse_vector_full (v.text, n, dim, &L->units, values, &flags, &unit_offset,
                                &offset, &message))
    value_problem (L, node, &v, name, offset, message);
  else if (v.text != NULL && !out_of_bounds (L, node, &v, name, values, n, bound))
    {
      memcpy (out, values, n * sizeof *out);
      if (flags & KM_SB_VALUE_PARENTHESISED_UNIT)
        note_parenthesised_unit (L, &v, unit_offset);
      if (flags & KM_SB_VALUE_DEFAULT_UNIT)
        note_leaked_unit (L, &v, dim);
    }
  val_clear (&v);
  return TRUE;
}

/* A real of dimension L that a pose is made of: at most KM_SCENEBUILDER_MAX_LENGTH. */
static gboolean
get_length (Loader      *L,
            Node        *node,
            const char  *name,
            double      *out,
            GError     **error)
{
  Val v;
  double value = 0.0;

  if (!lookup (L, node, name, &v, error))
    return FALSE;
  if (v.text != NULL &&
      trimmed_real (L, node, &v, name, KM_SB_DIM_L, &L->units, &value) &&
      !out_of_bounds (L, node, &v, name, &value, 1, KM_SCENEBUILDER_MAX_LENGTH))
    *out = value;
  val_clear (&v);
  return TRUE;
}

static gboolean
get_rotation (Loader      *L,
              Node        *node,
              const char  *name,
              KmQuat      *out,
              GError     **error)
{
  Val v;
  gsize offset = 0, unit_offset = 0;
  char *message = NULL;
  KmSbValueFlags flags = KM_SB_VALUE_OK;
  KmQuat value;

  if (!lookup (L, node, name, &v, error))
    return FALSE;
  if (v.text != NULL)
    {
      if (!km_sb_parse_rotation_full (v.text, &L->units, &value, &flags, &unit_offset, &offset,
                                      &message))
        value_problem (L, node, &v, name, offset, message);
      else
        {
          *out = value;
          if (flags & KM_SB_VALUE_PARENTHESISED_UNIT)
            note_parenthesised_unit (L, &v, unit_offset);
          if (flags & KM_SB_VALUE_DEFAULT_UNIT)
            note_leaked_unit (L, &v, KM_SB_DIM_R);
          if (flags & KM_SB_VALUE_NORMALIZED)
            note_once (L, NULL, v.file, v.pos,
                       _("the quaternion is not of unit length; normalised"));
          else if (flags & KM_SB_VALUE_NOT_ORTHONORMAL)
            note_once (L, NULL, v.file, v.pos,
                       _("the matrix is not a rotation; the nearest rotation is used"));
        }
    }
  val_clear (&v);
  return TRUE;
}

/*
 * specs/scenebuilder.md 2.9: str32_t holds 31 bytes, str256_t and paths 255; a longer value
 * is cut at the last UTF-8 character that fits, with a warning at the value (once per value
 * in the file).
 */
#define STR32_BYTES  31
#define STR256_BYTES 255

static void
limit_length (Loader     *L,
              Val        *v,
              const char *attribute,
              gsize       max_bytes)
{
  const char *end;
  g_autofree char *key = NULL;

  if (v->text == NULL || strlen (v->text) <= max_bytes)
    return;
  key = g_strdup_printf ("long:%s:%u:%u:%s", v->file->path, v->pos.line, v->pos.column,
                         attribute);
  /* Translators: an attribute name, then a number of bytes. */
  note_once (L, key, v->file, v->pos, _("the value of “%s” is longer than %u bytes and is cut"),
             attribute, (guint) max_bytes);
  /* Values are UTF-8 (GMarkup checks); the cut must not split a character. */
  end = v->text + max_bytes;
  if (!g_utf8_validate (v->text, max_bytes, &end))
    v->text[end - v->text] = '\0';
  else
    v->text[max_bytes] = '\0';
}

static gboolean
get_string (Loader      *L,
            Node        *node,
            const char  *name,
            Val         *out,
            GError     **error)
{
  return lookup (L, node, name, out, error);
}

static Obj *
find_child (Obj        *obj,
            const char *name)
{
  return obj->child_names != NULL ? g_hash_table_lookup (obj->child_names, name) : NULL;
}

static gboolean
name_taken (Obj        *parent,
            const char *name)
{
  return find_child (parent, name) != NULL ||
         (parent->link_names != NULL && g_hash_table_contains (parent->link_names, name));
}

/* Appends @child (named by assign_name, so its name is free) and indexes it. */
static void
add_child (Obj *parent,
           Obj *child)
{
  g_ptr_array_add (parent->children, child);
  if (parent->child_names == NULL)
    parent->child_names = g_hash_table_new (g_str_hash, g_str_equal);
  g_hash_table_insert (parent->child_names, child->name, child);
}

static void
add_link_indexed (Obj  *obj,
                  Link *link)
{
  g_ptr_array_add (obj->links, link);
  if (obj->link_names == NULL)
    obj->link_names = g_hash_table_new (g_str_hash, g_str_equal);
  g_hash_table_insert (obj->link_names, link->name, link);
}

/* Scenebuilder's AssignName: "" → type1, type2…; a clash → name1, name2… (the first free
 * number; names are never released, so the search goes on where it stopped last time). */
static char *
assign_name (Obj        *parent,
             const char *name,
             const char *type_name)
{
  const char *base = (name && name[0]) ? name : type_name;
  guint first;

  if (name && name[0] && !name_taken (parent, name))
    return g_strdup (name);
  if (parent->suffixes == NULL)
    parent->suffixes = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  first = GPOINTER_TO_UINT (g_hash_table_lookup (parent->suffixes, base));
  for (guint i = MAX (first, 1);; i++)
    {
      char *candidate = g_strdup_printf ("%s%u", base, i);

      if (!name_taken (parent, candidate))
        {
          g_hash_table_insert (parent->suffixes, g_strdup (base), GUINT_TO_POINTER (i + 1));
          return candidate;
        }
      g_free (candidate);
    }
}

/* Paths: '/'-separated names, '.', '..'; the base is the object containing the element. */
static Obj *
resolve_path (Loader     *L,
              Obj        *base,
              const char *path)
{
  g_auto(GStrv) segments = g_strsplit (path, "/", -1);
  Obj *obj = path[0] == '/' ? L->root : base;

  for (guint i = 0; segments[i] != NULL && obj != NULL; i++)
    {
      const char *seg = g_strstrip (segments[i]);

      if (seg[0] == '\0' || g_str_equal (seg, "."))
        continue;
      if (g_str_equal (seg, ".."))
        obj = obj->parent;
      else
        obj = find_child (obj, seg);
    }
  return obj;
}

static Link *
obj_find_link (Obj        *obj,
               const char *name)
{
  return obj->link_names != NULL ? g_hash_table_lookup (obj->link_names, name) : NULL;
}

static Obj *
obj_link_target (Obj        *obj,
                 const char *name)
{
  Link *link = obj_find_link (obj, name);

  return link ? link->target : NULL;
}

/*
 * Adds the link @name of @obj to the object at @path (base: @base). A path that resolves to
 * nothing is a warning at the path (once per value in the file) saying @consequence, and no
 * link is made. Returns whether the link was made.
 */
static gboolean
add_link (Loader      *L,
          Obj         *obj,
          Obj         *base,
          const char  *name,
          Val         *path,
          const char  *consequence)
{
  Obj *target;
  Link *link;

  target = resolve_path (L, base, path->text);
  if (target == NULL)
    {
      g_autofree char *key = g_strdup_printf ("path:%s:%u:%u", path->file->path,
                                              path->pos.line, path->pos.column);

      /* Translators: a path, then what is done about it ("the <hinge> is left out"). */
      note_once (L, key, path->file, path->pos,
                 _("no object at path “%s” (a relative path starts at the element that "
                   "contains this one; objects must be declared before they are "
                   "referenced); %s"), path->text, consequence);
      return FALSE;
    }
  link = g_new0 (Link, 1);
  if (name_taken (obj, name))
    {
      note_once (L, NULL, path->file, path->pos,
                 _("“%s” is already set on this element; the link is renamed and unused"),
                 name);
      link->name = assign_name (obj, name, "link");
    }
  else
    link->name = g_strdup (name);
  link->target = target;
  link->file = path->file;
  link->pos = path->pos;
  add_link_indexed (obj, link);
  return TRUE;
}

static gboolean
count_step (Loader  *L,
            Node    *node,
            GError **error)
{
  if (++L->n_steps > MAX_STEPS)
    {
      km_parse_error_set (error, KM_PARSE_ERROR_LIMIT, node->file->path, node->pos,
                          _("the scene expands to too many elements (at most %d)"), MAX_STEPS);
      return FALSE;
    }
  return TRUE;
}

/* Sticky default units (specs/scenebuilder.md 1.6): set when found, never restored. */
static gboolean
read_units (Loader  *L,
            Node    *node,
            GError **error)
{
  for (guint u = 0; u < 4; u++)
    {
      Val v;
      double factor;
      KmSbUnits si = KM_SB_UNITS_SI;
      gboolean ok;

      if (!lookup (L, node, unit_attributes[u], &v, error))
        return FALSE;
      /* 5.1: unit_* are str32 like every short string. */
      limit_length (L, &v, unit_attributes[u], STR32_BYTES);
      L->unit_leaked[u] = FALSE;
      /* An invalid unit is a warning; the current default unit stays, as if none were set. */
      ok = v.text != NULL &&
           trimmed_real (L, NULL, &v, unit_attributes[u], KM_SB_DIM_NONE, &si, &factor);
      if (ok && factor <= 0.0)
        {
          value_problem (L, NULL, &v, unit_attributes[u], 0,
                         g_strdup (_("expected a positive unit")));
          ok = FALSE;
        }
      val_clear (&v);
      if (!ok)
        {
          double current = u == 0 ? L->units.length : u == 1 ? L->units.rotation
                           : u == 2 ? L->units.mass : L->units.time;

          /* Noted where a value of this element is converted with it (note_leaked_unit). */
          L->unit_leaked[u] = current != 1.0 && L->unit_scoped[u];
          continue;
        }
      L->unit_scoped[u] = TRUE;
      switch (u)
        {
        case 0: L->units.length = factor; break;
        case 1: L->units.rotation = factor; break;
        case 2: L->units.mass = factor; break;
        default: L->units.time = factor; break;
        }
    }
  return TRUE;
}

static gboolean
is_joint_type (ObjType type)
{
  return type >= OBJ_HINGE && type <= OBJ_FREEJOINT;
}

static gboolean
read_spatial (Loader  *L,
              Node    *node,
              Obj     *obj,
              GError **error)
{
  /* NaN until a valid value is read: an absent or invalid trn or rot states nothing. */
  double trn[3] = { NAN, NAN, NAN };
  KmQuat rot = { NAN, NAN, NAN, NAN };
  double scale = 1.0;
  gboolean mirror = FALSE;

  if (!get_vector (L, node, "trn", 3, KM_SB_DIM_L, KM_SCENEBUILDER_MAX_LENGTH, trn, error) ||
      !get_rotation (L, node, "rot", &rot, error) ||
      !get_real (L, node, "scale", KM_SB_DIM_NONE, &scale, error))
    return FALSE;
  for (guint i = 0; i < 3; i++)
    {
      static const char * const names[] = { "mirrorx", "mirrory", "mirrorz" };
      gboolean m = FALSE;

      if (!get_bool (L, node, names[i], &m, error))
        return FALSE;
      mirror |= m;
    }
  if (scale != 1.0 || mirror)
    note_once (L, "scale", node->file, node->pos,
               _("scale and mirror do not change poses in Scenebuilder; ignored"));
  obj->given_trn = !isnan (trn[0]);
  obj->given_rot = !isnan (rot.w);
  if (!obj->given_trn)
    trn[0] = trn[1] = trn[2] = 0.0;
  if (!obj->given_rot)
    rot = KM_QUAT_IDENTITY;
  km_transform_from_pos_quat (km_vec3 (trn[0], trn[1], trn[2]), rot, &obj->local);
  return TRUE;
}

/* The CSS / X11 colour names (specs/scenebuilder.md 5.7: vmat colorname), sorted. */
typedef struct
{
  const char *name;
  guint32     rgb;
} ColorName;

static const ColorName color_names[] = {
  { "aliceblue", 0xf0f8ff }, { "antiquewhite", 0xfaebd7 }, { "aqua", 0x00ffff },
  { "aquamarine", 0x7fffd4 }, { "azure", 0xf0ffff }, { "beige", 0xf5f5dc },
  { "bisque", 0xffe4c4 }, { "black", 0x000000 }, { "blanchedalmond", 0xffebcd },
  { "blue", 0x0000ff }, { "blueviolet", 0x8a2be2 }, { "brown", 0xa52a2a },
  { "burlywood", 0xdeb887 }, { "cadetblue", 0x5f9ea0 }, { "chartreuse", 0x7fff00 },
  { "chocolate", 0xd2691e }, { "coral", 0xff7f50 }, { "cornflowerblue", 0x6495ed },
  { "cornsilk", 0xfff8dc }, { "crimson", 0xdc143c }, { "cyan", 0x00ffff },
  { "darkblue", 0x00008b }, { "darkcyan", 0x008b8b }, { "darkgoldenrod", 0xb8860b },
  { "darkgray", 0xa9a9a9 }, { "darkgreen", 0x006400 }, { "darkgrey", 0xa9a9a9 },
  { "darkkhaki", 0xbdb76b }, { "darkmagenta", 0x8b008b }, { "darkolivegreen", 0x556b2f },
  { "darkorange", 0xff8c00 }, { "darkorchid", 0x9932cc }, { "darkred", 0x8b0000 },
  { "darksalmon", 0xe9967a }, { "darkseagreen", 0x8fbc8f }, { "darkslateblue", 0x483d8b },
  { "darkslategray", 0x2f4f4f }, { "darkslategrey", 0x2f4f4f }, { "darkturquoise", 0x00ced1 },
  { "darkviolet", 0x9400d3 }, { "deeppink", 0xff1493 }, { "deepskyblue", 0x00bfff },
  { "dimgray", 0x696969 }, { "dimgrey", 0x696969 }, { "dodgerblue", 0x1e90ff },
  { "firebrick", 0xb22222 }, { "floralwhite", 0xfffaf0 }, { "forestgreen", 0x228b22 },
  { "fuchsia", 0xff00ff }, { "gainsboro", 0xdcdcdc }, { "ghostwhite", 0xf8f8ff },
  { "gold", 0xffd700 }, { "goldenrod", 0xdaa520 }, { "gray", 0x808080 }, { "green", 0x008000 },
  { "greenyellow", 0xadff2f }, { "grey", 0x808080 }, { "honeydew", 0xf0fff0 },
  { "hotpink", 0xff69b4 }, { "indianred", 0xcd5c5c }, { "indigo", 0x4b0082 },
  { "ivory", 0xfffff0 }, { "khaki", 0xf0e68c }, { "lavender", 0xe6e6fa },
  { "lavenderblush", 0xfff0f5 }, { "lawngreen", 0x7cfc00 }, { "lemonchiffon", 0xfffacd },
  { "lightblue", 0xadd8e6 }, { "lightcoral", 0xf08080 }, { "lightcyan", 0xe0ffff },
  { "lightgoldenrodyellow", 0xfafad2 }, { "lightgray", 0xd3d3d3 }, { "lightgreen", 0x90ee90 },
  { "lightgrey", 0xd3d3d3 }, { "lightpink", 0xffb6c1 }, { "lightsalmon", 0xffa07a },
  { "lightseagreen", 0x20b2aa }, { "lightskyblue", 0x87cefa }, { "lightslategray", 0x778899 },
  { "lightslategrey", 0x778899 }, { "lightsteelblue", 0xb0c4de }, { "lightyellow", 0xffffe0 },
  { "lime", 0x00ff00 }, { "limegreen", 0x32cd32 }, { "linen", 0xfaf0e6 }, { "magenta", 0xff00ff },
  { "maroon", 0x800000 }, { "mediumaquamarine", 0x66cdaa }, { "mediumblue", 0x0000cd },
  { "mediumorchid", 0xba55d3 }, { "mediumpurple", 0x9370db }, { "mediumseagreen", 0x3cb371 },
  { "mediumslateblue", 0x7b68ee }, { "mediumspringgreen", 0x00fa9a },
  { "mediumturquoise", 0x48d1cc }, { "mediumvioletred", 0xc71585 }, { "midnightblue", 0x191970 },
  { "mintcream", 0xf5fffa }, { "mistyrose", 0xffe4e1 }, { "moccasin", 0xffe4b5 },
  { "navajowhite", 0xffdead }, { "navy", 0x000080 }, { "oldlace", 0xfdf5e6 },
  { "olive", 0x808000 }, { "olivedrab", 0x6b8e23 }, { "orange", 0xffa500 },
  { "orangered", 0xff4500 }, { "orchid", 0xda70d6 }, { "palegoldenrod", 0xeee8aa },
  { "palegreen", 0x98fb98 }, { "paleturquoise", 0xafeeee }, { "palevioletred", 0xdb7093 },
  { "papayawhip", 0xffefd5 }, { "peachpuff", 0xffdab9 }, { "peru", 0xcd853f },
  { "pink", 0xffc0cb }, { "plum", 0xdda0dd }, { "powderblue", 0xb0e0e6 }, { "purple", 0x800080 },
  { "rebeccapurple", 0x663399 }, { "red", 0xff0000 }, { "rosybrown", 0xbc8f8f },
  { "royalblue", 0x4169e1 }, { "saddlebrown", 0x8b4513 }, { "salmon", 0xfa8072 },
  { "sandybrown", 0xf4a460 }, { "seagreen", 0x2e8b57 }, { "seashell", 0xfff5ee },
  { "sienna", 0xa0522d }, { "silver", 0xc0c0c0 }, { "skyblue", 0x87ceeb },
  { "slateblue", 0x6a5acd }, { "slategray", 0x708090 }, { "slategrey", 0x708090 },
  { "snow", 0xfffafa }, { "springgreen", 0x00ff7f }, { "steelblue", 0x4682b4 },
  { "tan", 0xd2b48c }, { "teal", 0x008080 }, { "thistle", 0xd8bfd8 }, { "tomato", 0xff6347 },
  { "turquoise", 0x40e0d0 }, { "violet", 0xee82ee }, { "wheat", 0xf5deb3 }, { "white", 0xffffff },
  { "whitesmoke", 0xf5f5f5 }, { "yellow", 0xffff00 }, { "yellowgreen", 0x9acd32 },
};

static int
compare_color_name (const void *key,
                    const void *element)
{
  return g_ascii_strcasecmp (key, *(const char * const *) element);
}

static gboolean
lookup_color_name (const char *name,
                   KmColor    *color)
{
  const ColorName *found = bsearch (name, color_names, G_N_ELEMENTS (color_names),
                                    sizeof color_names[0], compare_color_name);

  if (found == NULL)
    return FALSE;
  color->r = ((found->rgb >> 16) & 0xff) / 255.0f;
  color->g = ((found->rgb >> 8) & 0xff) / 255.0f;
  color->b = (found->rgb & 0xff) / 255.0f;
  return TRUE;
}

/* The typed attributes of each element this loader uses (section 5). */
static gboolean
read_attributes (Loader  *L,
                 Node    *node,
                 Obj     *obj,
                 GError **error)
{
  gboolean slider = obj->type == OBJ_SLIDER;

  if (obj->spatial && !read_spatial (L, node, obj, error))
    return FALSE;
  switch (obj->type)
    {
    case OBJ_BODY:
      return get_real (L, node, "mass", KM_SB_DIM_M, &obj->mass, error) &&
             get_bool (L, node, "dynamical", &obj->dynamical, error) &&
             get_bool (L, node, "stationary", &obj->stationary, error) &&
             get_bool (L, node, "auto_tree", &obj->auto_tree, error);
    case OBJ_HINGE:
    case OBJ_SLIDER:
      if (!get_bool (L, node, "enabled", &obj->enabled, error) ||
          !get_vector (L, node, "range", 2, slider ? KM_SB_DIM_L : KM_SB_DIM_R, INFINITY,
                       obj->range, error) ||
          !get_vector (L, node, "vrange", 2, slider ? KM_SB_DIM_L_T : KM_SB_DIM_R_T, INFINITY,
                       obj->vrange, error) ||
          !get_real (L, node, "flim", slider ? KM_SB_DIM_ML_T2 : KM_SB_DIM_ML2_T2, &obj->flim,
                     error) ||
          !(slider ? get_length (L, node, "pos", &obj->pos[0], error)
                   : get_real (L, node, "pos", KM_SB_DIM_R, &obj->pos[0], error)))
        return FALSE;
      for (guint i = 0; i < 2; i++)
        {
          const double *pair = i == 0 ? obj->range : obj->vrange;

          if (pair[0] > pair[1])
            {
              Val v;

              if (!lookup (L, node, i == 0 ? "range" : "vrange", &v, error))
                return FALSE;
              value_problem (L, node, &v, i == 0 ? "range" : "vrange", 0,
                             g_strdup (_("the minimum is larger than the maximum")));
              val_clear (&v);
              if (i == 0)
                {
                  obj->range[0] = -INFINITY;
                  obj->range[1] = INFINITY;
                }
              else
                {
                  obj->vrange[0] = -INFINITY;
                  obj->vrange[1] = INFINITY;
                }
            }
        }
      return TRUE;
    case OBJ_BALLJOINT:
      return get_bool (L, node, "enabled", &obj->enabled, error) &&
             get_rotation (L, node, "pos", &obj->ball_pos, error);
    case OBJ_UNIVERSALJOINT:
      return get_bool (L, node, "enabled", &obj->enabled, error) &&
             get_vector (L, node, "pos", 2, KM_SB_DIM_R, INFINITY, obj->pos, error);
    case OBJ_FIXJOINT:
    case OBJ_FREEJOINT:
      return get_bool (L, node, "enabled", &obj->enabled, error);
    case OBJ_GEAR:
      {
        Val type;

        if (!get_real (L, node, "ratio", KM_SB_DIM_NONE, &obj->ratio, error) ||
            !get_real (L, node, "offset", KM_SB_DIM_NONE, &obj->offset, error) ||
            !get_string (L, node, "type", &type, error))
          return FALSE;
        limit_length (L, &type, "type", STR32_BYTES);
        if (type.text != NULL && !g_str_equal (type.text, "pos") &&
            !g_str_equal (type.text, "vel"))
          {
            g_autofree char *key = g_strdup_printf ("gear-type:%s:%u:%u", type.file->path,
                                                    type.pos.line, type.pos.column);

            /* 5.12: only pos and vel (or nothing) say how the joints are coupled. */
            note_once (L, key, type.file, type.pos,
                       _("invalid value of “type”: expected pos or vel; the gear is left out"));
            obj->broken = TRUE;
          }
        obj->gear_position = type.text != NULL && g_str_equal (type.text, "pos");
        val_clear (&type);
        return TRUE;
      }
    case OBJ_IK:
      return get_bool (L, node, "enable_trn", &obj->enable_trn, error) &&
             get_bool (L, node, "enable_rot", &obj->enable_rot, error);
    case OBJ_BOX:
      {
        double size[3] = { 1, 1, 1 };

        if (!get_vector (L, node, "size", 3, KM_SB_DIM_L, INFINITY, size, error))
          return FALSE;
        obj->size = km_vec3 (size[0], size[1], size[2]);
        return TRUE;
      }
    case OBJ_SPHERE:
    case OBJ_CYLINDER:
    case OBJ_CAPSULE:
      return get_real (L, node, "radius", KM_SB_DIM_L, &obj->radius, error) &&
             get_real (L, node, "height", KM_SB_DIM_L, &obj->height, error);
    case OBJ_VMAT:
      {
        double diffuse[4] = { 0.8, 0.8, 0.8, 1.0 };
        double alpha = 1.0;
        Val name;

        if (!get_vector (L, node, "diffuse", 4, KM_SB_DIM_NONE, INFINITY, diffuse, error) ||
            !get_real (L, node, "alpha", KM_SB_DIM_NONE, &alpha, error) ||
            !get_string (L, node, "colorname", &name, error))
          return FALSE;
        limit_length (L, &name, "colorname", STR32_BYTES);
        obj->color = (KmColor) { diffuse[0], diffuse[1], diffuse[2], diffuse[3] };
        if (alpha != 1.0)
          obj->color.a = alpha;
        if (name.text != NULL)
          {
            g_autofree char *trimmed = g_strstrip (g_strdup (name.text));

            if (!lookup_color_name (trimmed, &obj->color))
              note_once (L, NULL, name.file, name.pos,
                         _("unknown colour name “%s”; the diffuse colour is used"), name.text);
          }
        val_clear (&name);
        return TRUE;
      }
    default:
      return TRUE;
    }
}

/* Every attribute Scenebuilder knows, per element (section 5; bases included), so that
 * unknown ones can be noted (section 1.2) while known but unused ones stay silent. */
#define SB_OBJECT  "name unit_length unit_rotation unit_mass unit_time "
#define SB_SPATIAL SB_OBJECT "trn rot scale mirrorx mirrory mirrorz "
#define SB_SHAPE   SB_OBJECT "collision mass visual auto_texcoord texture_scale texture_offset "
#define SB_JOINT   SB_OBJECT "sock plug enabled "
#define SB_JOINT1D SB_JOINT "range vrange flim damper spring pos vel targetpos targetvel filename "

static const struct
{
  const char *element;
  const char *attributes;   /* blank-separated, with a blank at both ends */
} known_attributes[] = {
  { "namespace", " " SB_SPATIAL },
  { "import", " " SB_SPATIAL "path filename " },
  { "body", " " SB_SPATIAL "mass inertia center dynamical stationary auto_mass auto_tree vel "
            "angvel acc angacc " },
  { "connector", " " SB_SPATIAL },
  { "ik", " " SB_SPATIAL "end ref sock enable_trn enable_rot " },
  { "pmat", " " SB_OBJECT "density cor static_friction dynamic_friction spring damper "
            "velocity_field_mode velocity_field_axis velocity_field_magnitude " },
  { "vmat", " " SB_OBJECT "ambient diffuse specular emissive shininess alpha colorname "
            "texture " },
  { "box", " " SB_SHAPE "size " },
  { "sphere", " " SB_SHAPE "radius slice stack " },
  { "cylinder", " " SB_SHAPE "radius height slice " },
  { "capsule", " " SB_SHAPE "radius height slice stack " },
  { "mesh", " " SB_SHAPE "filename scale prism prismdir mirror convex points stl_color "
            "stl_binary " },
  { "light", " " SB_OBJECT },
  { "camera", " " SB_OBJECT "fov " },
  { "attach", " " SB_OBJECT "connector shape vmat pmat light camera bone " },
  { "hinge", " " SB_JOINT1D "cyclic " },
  { "slider", " " SB_JOINT1D },
  { "balljoint", " " SB_JOINT "damper spring pos vel targetpos targetvel " },
  { "fixjoint", " " SB_JOINT },
  { "universaljoint", " " SB_JOINT "damper spring pos vel targetpos targetvel " },
  { "freejoint", " " SB_JOINT "pos ori vel angvel " },
  { "spring", " " SB_JOINT "damper spring " },
  { "gear", " " SB_OBJECT "up down ratio offset type " },
  { "gravity", " " SB_OBJECT "accel " },
  { "contact_group", " " SB_OBJECT "enable all_bodies " },
  { "ikjoint", " " SB_OBJECT "path " },
  { "iksync", " " SB_OBJECT "path0 path1 ratio " },
  { "ikcom", " " SB_OBJECT "pos enable " },
};

/* One note per (element, attribute) Scenebuilder does not know; it ignores them. */
static void
note_unknown_attributes (Loader *L,
                         Node   *node)
{
  const char *known = NULL;

  for (guint i = 0; i < G_N_ELEMENTS (known_attributes) && known == NULL; i++)
    if (g_str_equal (known_attributes[i].element, node->name))
      known = known_attributes[i].attributes;
  if (known == NULL)
    return;   /* mates, sensors, motors: not checked */
  for (guint i = 0; i < node->n_attrs; i++)
    {
      const char *name = node->attr_names[i];
      g_autofree char *word = g_strconcat (" ", name, " ", NULL);
      g_autofree char *key = NULL;

      /* xmlns, xml:lang, other vocabularies: not Scenebuilder's business. */
      if (strchr (name, ':') != NULL || g_str_has_prefix (name, "xmlns") ||
          strstr (known, word) != NULL)
        continue;
      key = g_strdup_printf ("attribute:%s:%s", node->name, name);
      /* Translators: an attribute name, then an element name. */
      note_once (L, key, node->file, node->attr_pos[i],
                 _("unknown attribute “%s” of <%s> ignored"), name, node->name);
    }
}

static const char * const *
path_attributes (ObjType type)
{
  static const char * const joint[] = { "sock", "plug", NULL };
  static const char * const gear[] = { "up", "down", NULL };
  static const char * const attach[] = { "connector", "shape", "vmat", NULL };
  static const char * const ik[] = { "end", "ref", "sock", NULL };
  static const char * const none[] = { NULL };

  if (is_joint_type (type))
    return joint;
  switch (type)
    {
    case OBJ_GEAR: return gear;
    case OBJ_ATTACH: return attach;
    case OBJ_IK: return ik;
    default: return none;
    }
}

static gboolean process_node (Loader  *L,
                              Node    *node,
                              GError **error);

static gboolean
process_children (Loader  *L,
                  Node    *node,
                  GError **error)
{
  for (guint i = 0; i < node->children->len; i++)
    if (!process_node (L, g_ptr_array_index (node->children, i), error))
      return FALSE;
  return TRUE;
}

/*
 * Creates one object from @node (Builder::Create): name, path attributes (base: the
 * containing object), units, typed attributes; then its children in a new context. For an
 * import, @children is the module or imported document element whose children fill it.
 */
static gboolean
create_object (Loader      *L,
               Node        *node,
               ObjType      type,
               const char  *type_name,
               Node        *children,
               GError     **error)
{
  const char * const *paths = path_attributes (type);
  Obj *obj;
  Val name;
  gboolean ok;

  if (++L->n_objects > KM_SCENEBUILDER_MAX_OBJECTS)
    {
      km_parse_error_set (error, KM_PARSE_ERROR_LIMIT, node->file->path, node->pos,
                          _("the scene has too many objects (at most %d)"),
                          KM_SCENEBUILDER_MAX_OBJECTS);
      return FALSE;
    }
  if (!lookup (L, node, "name", &name, error))
    return FALSE;
  obj = g_new0 (Obj, 1);
  obj->type = type;
  obj->type_name = type_name;
  obj->children = g_ptr_array_new_with_free_func ((GDestroyNotify) obj_free);
  obj->links = g_ptr_array_new_with_free_func ((GDestroyNotify) link_free);
  obj->node = node;
  obj->index = L->objects->len;
  obj->spatial = type == OBJ_NAMESPACE || type == OBJ_BODY || type == OBJ_CONNECTOR ||
                 type == OBJ_IK;
  km_transform_identity (&obj->local);
  obj->mass = 1.0;
  obj->dynamical = TRUE;
  obj->enabled = TRUE;
  obj->range[0] = obj->vrange[0] = -INFINITY;
  obj->range[1] = obj->vrange[1] = INFINITY;
  obj->flim = INFINITY;
  obj->ball_pos = KM_QUAT_IDENTITY;
  obj->ratio = 1.0;
  obj->enable_trn = TRUE;
  obj->size = km_vec3 (1, 1, 1);
  obj->radius = 1.0;
  obj->height = 1.0;
  obj->color = KM_COLOR_DEFAULT;
  obj->body_index = -1;
  obj->parent = L->cur;
  {
    const char *wanted;

    limit_length (L, &name, "name", STR256_BYTES);
    wanted = name.text;

    if (name.from_attr)
      note_once (L, "name-from-attr", name.file, name.pos,
                 _("an <attr> sets “name”, so it names every later element"));
    obj->name = assign_name (L->cur, wanted, type_name);
    /* At the element renamed (an <attr> name renames many). */
    if (wanted != NULL && !g_str_equal (wanted, obj->name))
      note_once (L, NULL, node->file, name.from_attr ? node->pos : name.pos,
                 _("a sibling is already called “%s”; this one is renamed “%s”"), wanted,
                 obj->name);
  }
  val_clear (&name);
  add_child (L->cur, obj);
  g_ptr_array_add (L->objects, obj);

  for (guint i = 0; paths[i] != NULL; i++)
    {
      Val v;

      if (!lookup (L, node, paths[i], &v, error))
        return FALSE;
      limit_length (L, &v, paths[i], STR256_BYTES);
      /* Every path this loader reads is needed by its element, except an attach's vmat
       * (the default colour then). */
      if (v.text != NULL &&
          !add_link (L, obj, obj->parent, paths[i], &v,
                     type == OBJ_ATTACH && g_str_equal (paths[i], "vmat")
                     ? _("the default colour is used")
                     : obj->type == OBJ_ATTACH ? _("the attach is skipped")
                     : obj->type == OBJ_GEAR ? _("the gear is left out")
                     : obj->type == OBJ_IK ? _("the IK target is left out")
                     : _("the joint is left out")))
        obj->broken |= !(type == OBJ_ATTACH && g_str_equal (paths[i], "vmat"));
      val_clear (&v);
    }
  if (!read_units (L, node, error) || !read_attributes (L, node, obj, error))
    return FALSE;
  note_unknown_attributes (L, node);
  if (type == OBJ_SKIPPED || type == OBJ_MESH)
    note_once (L, type_name, node->file, node->pos,
               type == OBJ_MESH ? _("<mesh> geometry is not loaded; skipped")
                                : _("<%s> has no meaning for a kinematic tree; skipped"),
               type_name);

  g_ptr_array_add (L->contexts, ctx_new ());
  L->cur = obj;
  ok = process_children (L, children ? children : node, error);
  L->cur = obj->parent;
  g_ptr_array_remove_index (L->contexts, L->contexts->len - 1);
  return ok;
}

/* Module paths live in the XML document: base = the import's parent element. */
static Node *
resolve_module (Node       *import,
                const char *path)
{
  g_auto(GStrv) segments = g_strsplit (path, "/", -1);
  Node *node = path[0] == '/' ? import->file->root : import->parent;
  gboolean first = TRUE;

  for (guint i = 0; segments[i] != NULL && node != NULL; i++)
    {
      const char *seg = segments[i];
      Node *found = NULL;

      if (seg[0] == '\0' || g_str_equal (seg, "."))
        continue;
      if (g_str_equal (seg, ".."))
        {
          node = node->parent;
          first = FALSE;
          continue;
        }
      for (guint c = 0; c < node->children->len && found == NULL; c++)
        {
          Node *child = g_ptr_array_index (node->children, c);
          const char *name = node_attr (child, "name", NULL);

          if (name != NULL && g_str_equal (name, seg))
            found = child;
        }
      /* "/cart/wheel" names the document element itself first. */
      if (found == NULL && first && path[0] == '/' && node == import->file->root)
        {
          const char *name = node_attr (node, "name", NULL);

          if (name != NULL && g_str_equal (name, seg))
            found = node;
        }
      first = FALSE;
      node = found;
    }
  return node;
}

static gboolean load_file (Loader      *L,
                           const char  *path,
                           const char  *data,
                           gsize        length,
                           SbFile     **out,
                           GError     **error);

/* An import that cannot be done (7.4: "invalid import path/filename", and nothing is
 * created): a warning at @pos, once per place in the file. */
G_GNUC_PRINTF (4, 5)
static void
import_problem (Loader      *L,
                SbFile      *file,
                KmSourcePos  pos,
                const char  *format,
                ...)
{
  g_autofree char *key = g_strdup_printf ("import:%s:%u:%u", file->path, pos.line, pos.column);
  g_autofree char *text = NULL;
  va_list args;

  va_start (args, format);
  text = g_strdup_vprintf (format, args);
  va_end (args);
  note_once (L, key, file, pos, "%s", text);
}

static gboolean
import_module (Loader     *L,
               Node       *node,
               const Val  *path,
               GError    **error)
{
  Node *module = resolve_module (node, path->text);
  gboolean ok;

  if (module == NULL)
    {
      import_problem (L, path->file, path->pos,
                      _("invalid import path “%s”: no module there (paths name elements of "
                        "this file, starting at the element that contains the import); "
                        "nothing is imported"), path->text);
      return TRUE;
    }
  for (Node *n = node; n != NULL; n = n->parent)
    if (n == module || g_ptr_array_find (L->import_stack, module, NULL))
      {
        import_problem (L, path->file, path->pos,
                        _("the module “%s” imports itself (an import cycle); nothing is "
                          "imported"), path->text);
        return TRUE;
      }
  if (!g_str_equal (module->name, "module"))
    note_once (L, "import-non-module", path->file, path->pos,
               _("the import copies the children of a <%s>, not of a <module>"),
               module->name);
  g_ptr_array_add (L->import_stack, module);
  ok = create_object (L, node, OBJ_NAMESPACE, "namespace", module, error);
  g_ptr_array_remove_index (L->import_stack, L->import_stack->len - 1);
  return ok;
}

/* The file being loaded (the top-level one, or one being imported) that is @canonical
 * (g_canonicalize_filename()), or NULL. */
static SbFile *
find_open_file (Loader     *L,
                const char *canonical)
{
  for (guint i = 0; i <= L->import_stack->len; i++)
    {
      SbFile *open = i == 0 ? g_ptr_array_index (L->files, 0)
                            : g_ptr_array_index (L->import_stack, i - 1);
      g_autofree char *other = NULL;

      /* The stack holds module Nodes too. */
      if (i > 0 && !g_ptr_array_find (L->files, open, NULL))
        continue;
      other = g_canonicalize_filename (open->path, NULL);
      if (g_str_equal (other, canonical))
        return open;
    }
  return NULL;
}

/* "\nincluded from FILE:LINE:COLUMN" for every file import being expanded, innermost
 * first, as km_parse_error_add_include() adds them to errors; "" at the top level. */
static char *
import_sites_text (Loader *L)
{
  GString *text = g_string_new (NULL);

  for (guint i = L->import_sites->len; i > 0; i--)
    {
      const ImportSite *site = &g_array_index (L->import_sites, ImportSite, i - 1);
      g_autofree char *location = km_parse_location (site->path, site->pos);

      g_string_append_printf (text, "\nincluded from %s", location);
    }
  return g_string_free (text, FALSE);
}

static gboolean
import_file (Loader     *L,
             Node       *node,
             const Val  *filename,
             GError    **error)
{
  g_autofree char *relative = g_strdelimit (g_strdup (filename->text), "\\", '/');
  /* Named as the user would name it ("x.xml", not "./x.xml", for a scene given as
   * "scene.xml"): its errors and warnings say so (DESIGN.md, "Error locations"). */
  g_autofree char *full = km_parse_included_path (node->file->path, relative);
  g_autofree char *canonical = g_canonicalize_filename (full, NULL);
  g_autofree char *self = g_canonicalize_filename (node->file->path, NULL);
  g_autoptr(GBytes) contents = NULL;
  g_autoptr(GError) io_error = NULL;
  KmSourcePos at = filename->pos;
  const char *bytes;
  gsize length = 0;
  SbFile *file = NULL;
  SbFile *open;
  gboolean ok;

  if (g_str_equal (self, canonical))
    open = node->file;
  else
    open = find_open_file (L, canonical);
  if (open != NULL)
    {
      g_autofree char *what = NULL;

      if (open == node->file)
        what = g_strdup_printf (_("“%s” imports itself (an import cycle); nothing is imported"),
                                filename->text);
      else
        {
          g_autofree char *shown_file = km_parse_shown_file (filename->file->path);
          g_autofree char *shown_open = km_parse_shown_file (open->path);

          /* Translators: the importing file, then the file already being imported (named
           * as in "included from" lines). */
          what = g_strdup_printf (_("“%s” imports “%s”, which is already being imported (an "
                                    "import cycle); nothing is imported"),
                                  shown_file, shown_open);
        }
      /* At the import that closes the cycle, then where every file around it was
       * imported (the importing file's included-from lines, as every warning in it has),
       * as for errors (DESIGN.md, "Error locations"). */
      import_problem (L, filename->file, at, "%s", what);
      return TRUE;
    }
  /* Bounded: an import of /dev/zero or a huge file fails before it is held. Read as the
   * top-level file is (km_format_load_model_file()): an error about the whole file is
   * located at FULL:1:1. */
  contents = km_format_read_whole_file (full, KM_SCENEBUILDER_MAX_SIZE, &io_error);
  if (contents == NULL && g_error_matches (io_error, KM_PARSE_ERROR, KM_PARSE_ERROR_IO))
    {
      g_autofree char *location = km_parse_location (full, (KmSourcePos) { 1, 1 });
      g_autofree char *prefix = g_strconcat (location, ": ", NULL);
      const char *why = io_error->message;

      /* "FULL:1:1: cannot read the file: …" without the FULL:1:1, which the message
       * names. */
      if (g_str_has_prefix (why, prefix))
        why = why + strlen (prefix);
      /* Translators: a file name, then why it cannot be read. */
      import_problem (L, filename->file, at,
                      _("invalid import filename “%s”: %s; nothing is imported"),
                      filename->text, why);
      return TRUE;
    }
  if (contents == NULL)
    {
      /* "FULL:1:1: the file is larger than …" (a resource limit), then "included from"
       * this element. */
      g_propagate_error (error, g_steal_pointer (&io_error));
      km_parse_error_add_include (error, filename->file->path, at);
      return FALSE;
    }
  bytes = g_bytes_get_data (contents, &length);
  /* Every import reads and keeps its file again: bound them together too, or a scene
   * importing a large file many times would hold it many times. */
  L->n_import_bytes += length;
  if (L->n_import_bytes > KM_SCENEBUILDER_MAX_SIZE)
    {
      km_parse_error_set (error, KM_PARSE_ERROR_LIMIT, filename->file->path, at,
                          _("the imported files are larger than %u MiB in all"),
                          (guint) (KM_SCENEBUILDER_MAX_SIZE / (1024 * 1024)));
      return FALSE;
    }
  /* An XML syntax error in the imported file fails the load, as in the top-level one. */
  if (!load_file (L, full, bytes != NULL ? bytes : "", length, &file, error))
    {
      km_parse_error_add_include (error, filename->file->path, at);
      return FALSE;
    }
  g_ptr_array_add (L->import_stack, file);
  g_array_append_val (L->import_sites, ((ImportSite) { filename->file->path, at }));
  file->included_from = import_sites_text (L);
  ok = create_object (L, node, OBJ_NAMESPACE, "namespace", file->root, error);
  g_array_set_size (L->import_sites, L->import_sites->len - 1);
  g_ptr_array_remove_index (L->import_stack, L->import_stack->len - 1);
  /* Errors inside the imported file (or deeper) name where it was included. */
  if (!ok)
    km_parse_error_add_include_from (error, filename->file->path, at);
  return ok;
}

/*
 * <import path=…> or <import filename=…> (7.4). Like every attribute, path, filename, name,
 * trn and rot may come from an enclosing <attr> (1.3, 1.5). Problems other than resource
 * limits and XML syntax errors in an imported file are warnings, and nothing is imported.
 */
static gboolean
process_import (Loader  *L,
                Node    *node,
                GError **error)
{
  Val path, filename;
  gboolean ok = TRUE;

  if (!lookup (L, node, "path", &path, error))
    return FALSE;
  if (!lookup (L, node, "filename", &filename, error))
    {
      val_clear (&path);
      return FALSE;
    }
  limit_length (L, &path, "path", STR256_BYTES);
  limit_length (L, &filename, "filename", STR256_BYTES);
  /* An <attr filename=…> meant for meshes reaches imports too (1.5): the import's own path
   * or filename wins over an inherited other one. */
  if (path.text != NULL && filename.text != NULL && path.from_attr != filename.from_attr)
    {
      Val *inherited = path.from_attr ? &path : &filename;
      g_autofree char *key = g_strdup_printf ("import-inherited:%s:%u:%u", node->file->path,
                                              node->pos.line, node->pos.column);

      /* Translators: both are attribute names (path, filename). */
      note_once (L, key, inherited->file, inherited->pos,
                 _("“%s” inherited from <attr> is ignored: the <import> has its own “%s”"),
                 path.from_attr ? "path" : "filename", path.from_attr ? "filename" : "path");
      val_clear (inherited);
    }
  if (path.text != NULL && filename.text != NULL)
    import_problem (L, filename.file, filename.pos,
                    _("an <import> takes either path or filename, not both; nothing is "
                      "imported"));
  else if (path.text == NULL && filename.text == NULL)
    import_problem (L, node->file, node->pos,
                    _("an <import> needs a path (a module) or a filename; nothing is "
                      "imported"));
  else if (L->import_stack->len >= KM_SCENEBUILDER_MAX_IMPORTS)
    {
      km_parse_error_set (error, KM_PARSE_ERROR_LIMIT, node->file->path, node->pos,
                          _("imports nested too deeply (at most %d levels)"),
                          KM_SCENEBUILDER_MAX_IMPORTS);
      ok = FALSE;
    }
  else if (path.text != NULL)
    ok = import_module (L, node, &path, error);
  else
    ok = import_file (L, node, &filename, error);
  val_clear (&path);
  val_clear (&filename);
  return ok;
}

static gboolean
process_for (Loader  *L,
             Node    *node,
             GError **error)
{
  double begin = 0, end = 0;
  Val var;
  Ctx *ctx = ctx_top (L);
  gboolean ok = TRUE;

  if (!get_string (L, node, "var", &var, error))
    return FALSE;
  if (var.text == NULL)
    {
      g_autofree char *key = g_strdup_printf ("for-var:%s:%u:%u", node->file->path,
                                              node->pos.line, node->pos.column);

      note_once (L, key, node->file, node->pos,
                 _("a <for> needs a var attribute; it is skipped with its contents"));
      return TRUE;
    }
  if (!get_real (L, node, "begin", KM_SB_DIM_NONE, &begin, error) ||
      !get_real (L, node, "end", KM_SB_DIM_NONE, &end, error))
    {
      val_clear (&var);
      return FALSE;
    }
  begin = trunc (begin);
  end = trunc (end);
  if (end - begin > MAX_STEPS)
    {
      km_parse_error_set (error, KM_PARSE_ERROR_LIMIT, node->file->path, node->pos,
                          _("the loop runs more than %d times"), MAX_STEPS);
      val_clear (&var);
      return FALSE;
    }
  for (double i = begin; i < end && ok; i++)
    {
      g_hash_table_insert (ctx->vars, g_strdup (var.text), g_strdup_printf ("%.0f", i));
      ok = count_step (L, node, error) && process_children (L, node, error);
    }
  val_clear (&var);
  return ok;
}

static gboolean
process_var (Loader  *L,
             Node    *node,
             GError **error)
{
  Val name;
  double value = 0;
  char buffer[G_ASCII_DTOSTR_BUF_SIZE];

  if (!get_string (L, node, "name", &name, error))
    return FALSE;
  if (name.text == NULL)
    {
      g_autofree char *key = g_strdup_printf ("var-name:%s:%u:%u", node->file->path,
                                              node->pos.line, node->pos.column);

      note_once (L, key, node->file, node->pos, _("a <var> needs a name attribute; it is ignored"));
      return TRUE;
    }
  if (!get_real (L, node, "value", KM_SB_DIM_NONE, &value, error))
    {
      val_clear (&name);
      return FALSE;
    }
  if (value != trunc (value))
    note_once (L, NULL, node->file, node->pos,
               _("Scenebuilder truncates variables to integers; “%s” keeps its fraction"),
               name.text);
  g_ascii_formatd (buffer, sizeof buffer, "%.17g", value);
  g_hash_table_insert (ctx_top (L)->vars, g_strdup (name.text), g_strdup (buffer));
  val_clear (&name);
  return TRUE;
}

static gboolean
process_node (Loader  *L,
              Node    *node,
              GError **error)
{
  if (!count_step (L, node, error))
    return FALSE;
  if (g_str_equal (node->name, "attr"))
    {
      Ctx *ctx = ctx_top (L);

      for (guint i = 0; i < node->n_attrs; i++)
        {
          AttrVal *v = g_new0 (AttrVal, 1);

          v->value = g_strdup (node->attr_values[i]);
          v->file = node->file;
          v->pos = node->attr_pos[i];
          v->start = node->attr_starts[i];
          g_hash_table_insert (ctx->attrs, g_strdup (node->attr_names[i]), v);
        }
      return TRUE;
    }
  if (g_str_equal (node->name, "module"))
    return TRUE;
  if (g_str_equal (node->name, "import"))
    return process_import (L, node, error);
  if (g_str_equal (node->name, "for"))
    return process_for (L, node, error);
  if (g_str_equal (node->name, "var"))
    return process_var (L, node, error);
  if (g_str_equal (node->name, "link"))
    {
      Val name, path;

      if (!lookup (L, node, "name", &name, error))
        return FALSE;
      if (!lookup (L, node, "path", &path, error))
        {
          val_clear (&name);
          return FALSE;
        }
      if (path.text == NULL)
        {
          g_autofree char *key = g_strdup_printf ("link-path:%s:%u:%u", node->file->path,
                                                  node->pos.line, node->pos.column);

          note_once (L, key, node->file, node->pos,
                     _("a <link> needs a path attribute; it is ignored"));
          val_clear (&name);
          return TRUE;
        }
      limit_length (L, &name, "name", STR256_BYTES);
      limit_length (L, &path, "path", STR256_BYTES);
      {
        g_autofree char *link_name = assign_name (L->cur, name.text, "link");

        add_link (L, L->cur, L->cur, name.text ? name.text : link_name, &path,
                  _("the link is ignored"));
      }
      val_clear (&name);
      val_clear (&path);
      return TRUE;
    }
  for (guint i = 0; i < G_N_ELEMENTS (object_types); i++)
    if (g_str_equal (node->name, object_types[i].name))
      return create_object (L, node, object_types[i].type, object_types[i].name, NULL, error);

  if (node->parent == NULL && L->cur == L->root)
    {
      km_parse_error_set (error, KM_PARSE_ERROR_INVALID, node->file->path, node->pos,
                          _("expected a Scenebuilder scene (such as <namespace>), found <%s>"),
                          node->name);
      return FALSE;
    }
  {
    g_autofree char *key = g_strconcat ("unknown:", node->name, NULL);

    note_once (L, key, node->file, node->pos,
               _("unknown element <%s> skipped with its contents"), node->name);
  }
  return TRUE;
}

static gboolean
load_file (Loader      *L,
           const char  *path,
           const char  *data,
           gsize        length,
           SbFile     **out,
           GError     **error)
{
  SbFile *file = parse_document (path, data, length, error);

  if (file == NULL)
    return FALSE;
  g_ptr_array_add (L->files, file);
  *out = file;
  return TRUE;
}

/* ------------------------------------------------------------------------------------------ */
/* Kinematic tree (specs/scenebuilder.md section 8)                                           */

static void
pose_below (Obj         *obj,
            Obj         *stop,
            KmTransform *out)
{
  km_transform_identity (out);
  for (Obj *o = obj; o != NULL && o != stop; o = o->parent)
    if (o->spatial)
      {
        KmTransform t;

        km_transform_mul (&o->local, out, &t);
        *out = t;
      }
}

static Obj *
body_of (Obj *obj)
{
  for (Obj *o = obj->parent; o != NULL; o = o->parent)
    if (o->type == OBJ_BODY)
      return o;
  return NULL;
}

/* The path below the document element ("robot0/body_link3"). */
static char *
obj_path (Obj *obj)
{
  g_autoptr(GPtrArray) names = g_ptr_array_new ();
  GString *s = g_string_new (NULL);

  for (Obj *o = obj; o != NULL && o->parent != NULL && o->parent->type != OBJ_ROOT;
       o = o->parent)
    g_ptr_array_insert (names, 0, o->name);
  if (names->len == 0)
    g_string_append (s, obj->name);
  for (guint i = 0; i < names->len; i++)
    {
      if (i > 0)
        g_string_append_c (s, '/');
      g_string_append (s, names->pdata[i]);
    }
  return g_string_free (s, FALSE);
}

typedef struct
{
  Obj         *joint;
  int          sock_body;
  int          plug_body;
  KmTransform  sock;        /* sock connector in its body */
  KmTransform  plug;        /* plug connector in its body */
  gboolean     used;
  int          skeleton[2];  /* builder joints it became; the second for universal joints */
  double       sign;        /* -1 when inverted */
} Edge;

typedef struct
{
  char        *name;
  Node        *node;        /* the element it was made for */
  char        *body_path;
  KmTransform  body_offset;
  double       q[3];
  guint        n_q;
  KmLimit      vlimit;
  double       effort;
} JointInfo;

static void
joint_info_clear (gpointer data)
{
  JointInfo *info = data;

  g_free (info->name);
  g_free (info->body_path);
}

/*
 * The body and pose of the connector that @joint's @attribute names. Where there is none
 * (section 3: the consumer checks the type, an error for this object only), a warning
 * saying @consequence, once per element in the file, and FALSE.
 */
static gboolean
connector_end (Loader      *L,
               Obj         *joint,
               const char  *attribute,
               const char  *consequence,
               Obj        **body,
               KmTransform *pose)
{
  Link *link = obj_find_link (joint, attribute);
  SbFile *file = link ? link->file : joint->node->file;
  KmSourcePos pos = link ? link->pos : joint->node->pos;
  g_autofree char *key = g_strdup_printf ("connector:%s:%u:%u:%s", file->path, pos.line,
                                          pos.column, attribute);

  if (link == NULL)
    {
      /* Translators: an element name, an attribute name, then what is done about it. */
      note_once (L, key, file, pos, _("<%s> needs a %s connector; %s"), joint->type_name,
                 attribute, consequence);
      return FALSE;
    }
  if (link->target->type != OBJ_CONNECTOR)
    {
      /* Translators: an attribute name, an element name, then what is done about it. */
      note_once (L, key, file, pos, _("“%s” must name a <connector>, not a <%s>; %s"),
                 attribute, link->target->type_name, consequence);
      return FALSE;
    }
  *body = body_of (link->target);
  if (*body == NULL)
    {
      /* Translators: an attribute name, then what is done about it. */
      note_once (L, key, file, pos, _("the connector of “%s” is not inside a <body>; %s"),
                 attribute, consequence);
      return FALSE;
    }
  pose_below (link->target, *body, pose);
  return TRUE;
}

static int
find_root (int *uf,
           int  i)
{
  while (uf[i] != i)
    i = uf[i] = uf[uf[i]];
  return i;
}

static KmQuat
transform_quat (const KmTransform *t)
{
  return km_quat_normalize (km_mat3_to_quat (&t->rot));
}

static gboolean
is_identity_rotation (const KmMat3 *m)
{
  for (guint r = 0; r < 3; r++)
    for (guint c = 0; c < 3; c++)
      if (fabs (m->m[r][c] - (r == c ? 1.0 : 0.0)) > 1e-12)
        return FALSE;
  return TRUE;
}

static gboolean
limited (double v)
{
  return isfinite (v) && fabs (v) < 1e300;
}

/* The skeleton's joint names, unique (km_skeleton_builder_build refuses duplicates). */
typedef struct
{
  GHashTable *counts;   /* bare name (borrowed) → how many skeleton joints are called so */
  GHashTable *taken;    /* the names given so far (borrowed from strings) */
  GHashTable *next;     /* name (owned) → the next numbered suffix to try */
  GPtrArray  *strings;  /* owns the names */
} Naming;

static void
count_name (GHashTable *counts,
            const char *name)
{
  g_hash_table_insert (counts, (gpointer) name,
                       GUINT_TO_POINTER (GPOINTER_TO_UINT (g_hash_table_lookup (counts, name)) + 1));
}

/* The end of @path that fits in @max bytes, whole levels only ("b/c" of "a/b/c"); each
 * level is a name cut to 255 bytes (plus a renaming number, "_y" or "_x"), so the last one
 * always fits. */
static const char *
last_levels (const char *path,
             gsize       max)
{
  const char *p = path;

  while (strlen (p) > max && strchr (p, '/') != NULL)
    p = strchr (p, '/') + 1;
  return p;
}

/*
 * The name of a skeleton joint made for @node: the bare name when it is unique among the
 * skeleton's joints, else the path below the document element. A path longer than
 * KM_SKELETON_MAX_NAME keeps its last levels; a name already given (names with '/', a
 * universal joint's "_y" and a hinge called so) gets the first free number, as
 * Scenebuilder's AssignName does. Each with a warning at @node.
 */
static const char *
joint_name (Loader     *L,
            Naming     *naming,
            Node       *node,
            const char *bare,
            const char *path)
{
  const char *wanted = GPOINTER_TO_UINT (g_hash_table_lookup (naming->counts, bare)) > 1
                       ? path : bare;
  char *name = g_strdup (last_levels (wanted, KM_SKELETON_MAX_NAME));

  if (strlen (wanted) > KM_SKELETON_MAX_NAME)
    note_once (L, NULL, node->file, node->pos,
               /* Translators: a number of bytes, then a joint name. */
               _("the path of this joint is longer than %d bytes; the joint is named “%s” "
                 "after its last levels"), KM_SKELETON_MAX_NAME, name);
  if (g_hash_table_contains (naming->taken, name))
    {
      guint first = GPOINTER_TO_UINT (g_hash_table_lookup (naming->next, name));

      for (guint i = MAX (first, 1);; i++)
        {
          g_autofree char *suffix = g_strdup_printf ("%u", i);
          const char *base = last_levels (name, KM_SKELETON_MAX_NAME - strlen (suffix));
          char *candidate = g_strconcat (base, suffix, NULL);

          if (!g_hash_table_contains (naming->taken, candidate))
            {
              g_hash_table_insert (naming->next, g_strdup (name), GUINT_TO_POINTER (i + 1));
              note_once (L, NULL, node->file, node->pos,
                         /* Translators: two joint names. */
                         _("the skeleton already has a joint “%s”; this one is named “%s”"),
                         name, candidate);
              g_free (name);
              name = candidate;
              break;
            }
          g_free (candidate);
        }
    }
  g_ptr_array_add (naming->strings, name);
  g_hash_table_add (naming->taken, name);
  return name;
}

/* A skeleton joint for @node (what an error about it points at), named by joint_name. */
static guint
add_builder_joint (Loader            *L,
                   KmSkeletonBuilder *builder,
                   GArray            *infos,
                   Naming            *naming,
                   Node              *node,
                   const char        *bare,
                   const char        *path,
                   KmJointType        type,
                   const char        *parent,
                   const KmTransform *frame)
{
  const char *name = joint_name (L, naming, node, bare, path);
  guint j = km_skeleton_builder_add_joint (builder, name, type, parent);
  JointInfo info = { 0 };

  km_skeleton_builder_set_offset (builder, j, frame->pos);
  if (!is_identity_rotation (&frame->rot))
    km_skeleton_builder_set_rotation (builder, j, transform_quat (frame));
  info.name = g_strdup (name);
  info.node = node;
  km_transform_identity (&info.body_offset);
  info.vlimit = (KmLimit) { FALSE, -INFINITY, INFINITY };
  info.effort = INFINITY;
  g_array_append_val (infos, info);
  return j;
}

static void
shape_color (Loader  *L,
             Obj     *attach,
             KmShape *shape)
{
  Link *vmat = obj_find_link (attach, "vmat");

  if (vmat == NULL)
    return;
  if (vmat->target->type == OBJ_VMAT)
    shape->color = vmat->target->color;
  else
    /* Translators: an element name. */
    note_once (L, NULL, vmat->file, vmat->pos,
               _("“vmat” must name a <vmat>, not a <%s>; the default colour is used"),
               vmat->target->type_name);
}

static void
add_shapes (Loader            *L,
            KmSkeletonBuilder *builder,
            GArray            *infos,
            const int         *body_joint)
{
  for (guint i = 0; i < L->objects->len; i++)
    {
      Obj *attach = g_ptr_array_index (L->objects, i);
      Obj *target, *body;
      KmTransform pose, in_joint, turn;
      g_autoptr(KmShape) shape = NULL;
      JointInfo *info;

      if (attach->type != OBJ_ATTACH)
        continue;
      target = obj_link_target (attach, "shape");
      if (target == NULL || obj_link_target (attach, "connector") == NULL)
        continue;
      if (attach->broken ||
          !connector_end (L, attach, "connector", _("the attach is skipped"), &body, &pose))
        continue;
      if (body->body_index < 0 || body_joint[body->body_index] < 0)
        continue;
      switch (target->type)
        {
        case OBJ_BOX:
          shape = km_shape_new_box (target->size);
          break;
        case OBJ_SPHERE:
          shape = km_shape_new_sphere (target->radius);
          break;
        case OBJ_CYLINDER:
          shape = km_shape_new_cylinder (target->radius, target->height);
          break;
        case OBJ_CAPSULE:
          shape = km_shape_new_capsule (target->radius, target->height);
          break;
        case OBJ_MESH:
          continue;   /* noted where the mesh is */
        default:
          {
            Link *link = obj_find_link (attach, "shape");

            /* Section 3: the consumer checks the type, an error for this object only. */
            /* Translators: an element name. */
            note_once (L, NULL, link->file, link->pos,
                       _("“shape” must name a shape (box, sphere, cylinder, capsule or mesh), "
                         "not a <%s>; the attach is skipped"), target->type_name);
          }
          continue;
        }
      km_shape_set_name (shape, target->name);
      shape_color (L, attach, shape);
      info = &g_array_index (infos, JointInfo, body_joint[body->body_index]);
      km_transform_mul (&info->body_offset, &pose, &in_joint);
      if (target->type == OBJ_CYLINDER || target->type == OBJ_CAPSULE)
        {
          /* Scenebuilder's cylinders run along z, KmShape's along y: Rx(90°) maps y to z. */
          km_transform_from_pos_quat (KM_VEC3_ZERO,
                                      km_quat_from_axis_angle (km_vec3 (1, 0, 0), G_PI / 2),
                                      &turn);
          km_transform_mul (&in_joint, &turn, &shape->transform);
        }
      else
        shape->transform = in_joint;
      km_skeleton_builder_add_shape (builder, body_joint[body->body_index], shape);
    }
}

typedef struct
{
  guint edge;
  gboolean inverted;
  int parent_body;
  int child_body;
} Step;

static void
gear_free (KmScenebuilderGear *gear)
{
  g_free (gear->name);
  g_free (gear);
}

/* What the loader allocates for a KmScenebuilderIk: with the included-from lines of its
 * file (SbFile.included_from), for the warning format_load_model gives about it after the
 * files are gone. */
typedef struct
{
  KmScenebuilderIk ik;
  char            *included_from;
} IkTarget;

static void
ik_free (KmScenebuilderIk *ik)
{
  g_free (ik->name);
  g_free (ik->file);
  g_free (((IkTarget *) ik)->included_from);
  g_free (ik);
}

void
km_scenebuilder_model_free (KmScenebuilderModel *model)
{
  if (model == NULL)
    return;
  g_clear_pointer (&model->skeleton, km_skeleton_unref);
  g_free (model->initial_q);
  g_strfreev (model->body_paths);
  g_free (model->body_offsets);
  g_free (model->velocity_limits);
  g_free (model->effort_limits);
  g_clear_pointer (&model->gears, g_ptr_array_unref);
  g_clear_pointer (&model->ik_targets, g_ptr_array_unref);
  g_free (model);
}

/* A gear that became a mimic coupling (builder joint indices). */
typedef struct
{
  Obj    *gear;
  guint   up;
  guint   down;
  double  ratio;
  double  offset;
} LinkedGear;

/*
 * Before the build: each gear becomes a mimic coupling of its down joint (section 6.2).
 * A position gear gives down = ratio · up + offset directly; a velocity gear takes the
 * offset from the initial positions. Ratio and offset are in the skeleton's q (negated for
 * inverted joints). A gear whose down joint another gear already drives, or that would
 * chain (its up joint driven, or its down joint driving), is left out with a warning.
 */
static void
link_gears (Loader             *L,
            GArray             *edges,
            GArray             *infos,
            KmSkeletonBuilder  *builder,
            GArray             *linked)
{
  g_autoptr(GHashTable) edge_of = NULL;
  g_autofree guint *driven = g_new0 (guint, MAX (infos->len, 1));
  g_autofree guint *driving = g_new0 (guint, MAX (infos->len, 1));

  for (guint i = 0; i < L->objects->len; i++)
    {
      Obj *gear = g_ptr_array_index (L->objects, i);
      guint idx[2] = { 0, 0 };
      double sign[2] = { 1, 1 };
      const JointInfo *up, *down;
      LinkedGear g;
      gboolean skip = FALSE, slider = FALSE;
      double q;

      if (gear->type != OBJ_GEAR || gear->broken)
        continue;
      for (guint k = 0; k < 2; k++)
        {
          const char *attribute = k == 0 ? "up" : "down";
          Link *link = obj_find_link (gear, attribute);
          Edge *e;
          int edge;

          if (link == NULL)
            {
              g_autofree char *key = g_strdup_printf ("gear-joints:%s:%u:%u",
                                                      gear->node->file->path,
                                                      gear->node->pos.line,
                                                      gear->node->pos.column);

              note_once (L, key, gear->node->file, gear->node->pos,
                         _("<gear> needs “up” and “down” joints; the gear is left out"));
              skip = TRUE;
              break;
            }
          if (link->target->type != OBJ_HINGE && link->target->type != OBJ_SLIDER)
            {
              g_autofree char *key = g_strdup_printf ("gear-joint:%s:%u:%u", link->file->path,
                                                      link->pos.line, link->pos.column);

              /* Translators: an attribute name (up or down), then an element name. */
              note_once (L, key, link->file, link->pos,
                         _("“%s” must name a <hinge> or <slider>, not a <%s>; the gear is "
                           "left out"), attribute, link->target->type_name);
              skip = TRUE;
              break;
            }
          if (edge_of == NULL)
            {
              /* joint element → 1 + its edge, built at the first gear */
              edge_of = g_hash_table_new (NULL, NULL);
              for (guint n = edges->len; n > 0; n--)
                g_hash_table_insert (edge_of, g_array_index (edges, Edge, n - 1).joint,
                                     GUINT_TO_POINTER (n));
            }
          edge = (int) GPOINTER_TO_UINT (g_hash_table_lookup (edge_of, link->target)) - 1;
          e = edge >= 0 ? &g_array_index (edges, Edge, edge) : NULL;
          if (e == NULL || e->skeleton[0] < 0)
            {
              note_once (L, NULL, link->file, link->pos,
                         _("the joint is not part of the tree; the gear is left out"));
              skip = TRUE;
              break;
            }
          idx[k] = (guint) e->skeleton[0];
          sign[k] = e->sign;
          slider = link->target->type == OBJ_SLIDER;
        }
      if (skip)
        continue;

      up = &g_array_index (infos, JointInfo, idx[0]);
      down = &g_array_index (infos, JointInfo, idx[1]);
      if (idx[0] == idx[1])
        {
          note_once (L, NULL, gear->node->file, gear->node->pos,
                     _("the gear “%s” couples the joint “%s” to itself; it is left out"),
                     gear->name, down->name);
          continue;
        }
      /* driven[j], driving[j]: 1 + the linked gear that drives j / that j drives first. */
      if (driven[idx[1]] > 0)
        {
          note_once (L, NULL, gear->node->file, gear->node->pos,
                     /* Translators: gear, joint, the other gear */
                     _("the gear “%s” is left out: the joint “%s” is already driven by "
                       "the gear “%s”"), gear->name, down->name,
                     g_array_index (linked, LinkedGear, driven[idx[1]] - 1).gear->name);
          continue;
        }
      if (driven[idx[0]] > 0 || driving[idx[1]] > 0)
        {
          guint other = driven[idx[0]] > 0 ? driven[idx[0]] : driving[idx[1]];

          note_once (L, NULL, gear->node->file, gear->node->pos,
                     /* Translators: gear, the other gear */
                     _("the gear “%s” is left out: it would chain with the gear “%s” "
                       "(a driven joint cannot drive another one)"),
                     gear->name, g_array_index (linked, LinkedGear, other - 1).gear->name);
          continue;
        }

      g.gear = gear;
      g.up = idx[0];
      g.down = idx[1];
      g.ratio = sign[0] * sign[1] * gear->ratio;
      if (gear->gear_position)
        g.offset = sign[1] * gear->offset;
      else
        g.offset = down->q[0] - g.ratio * up->q[0];
      if (!isfinite (g.ratio) || !isfinite (g.offset))
        {
          note_once (L, NULL, gear->node->file, gear->node->pos,
                     _("the gear “%s” does not give a finite ratio and offset; it is left "
                       "out"), gear->name);
          continue;
        }
      /* Where the gear puts its down joint at the initial configuration: a finite angle,
       * a slider position a pose can hold (KM_SCENEBUILDER_MAX_LENGTH). */
      q = g.ratio * up->q[0] + g.offset;
      if (!isfinite (q) || (slider && fabs (q) > KM_SCENEBUILDER_MAX_LENGTH))
        {
          if (slider)
            note_once (L, NULL, gear->node->file, gear->node->pos,
                       /* Translators: gear, joint, then a length in metres such as 1e+100 */
                       _("the gear “%s” moves the slider “%s” beyond %g m; it is left out"),
                       gear->name, down->name, KM_SCENEBUILDER_MAX_LENGTH);
          else
            note_once (L, NULL, gear->node->file, gear->node->pos,
                       /* Translators: gear, joint */
                       _("the gear “%s” turns the hinge “%s” to an angle that is not "
                         "finite; it is left out"), gear->name, down->name);
          continue;
        }
      km_skeleton_builder_set_mimic (builder, g.down, up->name, g.ratio, g.offset);
      g_array_append_val (linked, g);
      driven[g.down] = linked->len;
      if (driving[g.up] == 0)
        driving[g.up] = linked->len;
    }
}

/* What the build's unlink function needs: the gears linked so far. */
typedef struct
{
  Loader *L;
  GArray *linked;
} GearUnlink;

/* The build dropped a gear whose down joint cannot stay within its limits following the
 * up joint (no value of the up joint's range keeps it there): the gear is left out, and
 * the down joint moves on its own. */
static void
gear_unlinked (guint       joint,
               const char *reason,
               gpointer    user_data)
{
  GearUnlink *u = user_data;

  for (guint k = 0; k < u->linked->len; k++)
    {
      const LinkedGear *g = &g_array_index (u->linked, LinkedGear, k);

      if (g->down != joint)
        continue;
      /* Translators: the reason, then a gear name */
      note_once (u->L, NULL, g->gear->node->file, g->gear->node->pos,
                 _("%s; the gear “%s” is left out"), reason, g->gear->name);
      g_array_remove_index (u->linked, k);
      return;
    }
}

/* After the build: the couplings in skeleton indices. */
static void
add_gears (GArray              *linked,
           GArray              *infos,
           KmScenebuilderModel *model)
{
  for (guint i = 0; i < linked->len; i++)
    {
      const LinkedGear *l = &g_array_index (linked, LinkedGear, i);
      KmScenebuilderGear *g = g_new0 (KmScenebuilderGear, 1);

      g->name = g_strdup (l->gear->name);
      g->up = km_skeleton_find_joint (model->skeleton,
                                      g_array_index (infos, JointInfo, l->up).name);
      g->down = km_skeleton_find_joint (model->skeleton,
                                        g_array_index (infos, JointInfo, l->down).name);
      g->position = l->gear->gear_position;
      g->ratio = l->ratio;
      g->offset = l->offset;
      g_ptr_array_add (model->gears, g);
    }
}

static void
add_iks (Loader              *L,
         const int           *body_joint,
         GArray              *infos,
         KmScenebuilderModel *model)
{
  g_autofree KmTransform *world = NULL;
  guint n = km_skeleton_get_n_joints (model->skeleton);

  world = g_new (KmTransform, n);
  km_skeleton_forward_kinematics (model->skeleton, model->initial_q, NULL, world);
  for (guint i = 0; i < L->objects->len; i++)
    {
      Obj *ik = g_ptr_array_index (L->objects, i);
      Link *end, *sock;
      Obj *body;
      KmTransform pose;
      KmScenebuilderIk *target;
      int j;

      if (ik->type != OBJ_IK)
        continue;
      end = obj_find_link (ik, "end");
      sock = obj_find_link (ik, "sock");
      if (end && sock && end->target != sock->target)
        note_once (L, NULL, sock->file, sock->pos,
                   _("“end” and “sock” name different connectors; “end” is used"));
      if (ik->broken ||
          !connector_end (L, ik, end ? "end" : "sock", _("the IK target is left out"), &body,
                          &pose))
        continue;
      if (body_joint[body->body_index] < 0)
        continue;
      {
        IkTarget *it = g_new0 (IkTarget, 1);

        it->included_from = g_strdup (ik->node->file->included_from);
        target = &it->ik;
      }
      target->name = g_strdup (ik->name);
      target->file = g_strdup (ik->node->file->path);
      target->pos = ik->node->pos;
      target->effector = km_skeleton_find_joint (
        model->skeleton, g_array_index (infos, JointInfo, body_joint[body->body_index]).name);
      km_transform_mul (&g_array_index (infos, JointInfo, body_joint[body->body_index]).body_offset,
                        &pose, &target->effector_offset);
      target->enable_position = ik->enable_trn;
      target->enable_orientation = ik->enable_rot;
      target->target = ik->local;
      target->base = -1;
      if (obj_find_link (ik, "ref") != NULL)
        {
          Obj *ref_body;
          KmTransform ref_pose, in_joint, ref_world;

          if (!connector_end (L, ik, "ref", _("the IK target is left out"), &ref_body,
                              &ref_pose))
            {
              ik_free (target);
              continue;
            }
          j = body_joint[ref_body->body_index];
          if (j >= 0)
            {
              JointInfo *info = &g_array_index (infos, JointInfo, j);
              int t = km_skeleton_find_joint (model->skeleton, info->name);

              const KmJoint *joints = km_skeleton_get_joints (model->skeleton);
              int a = joints[target->effector].parent;

              km_transform_mul (&info->body_offset, &ref_pose, &in_joint);
              km_transform_mul (&world[t], &in_joint, &ref_world);
              km_transform_mul (&ref_world, &ik->local, &target->target);
              /* The target stays where it is in ref's frame (5.14) while the chain, the
               * joints from end's body up to but not including ref's body, alone moves:
               * ref's joint is the solve's base. */
              while (a >= 0 && a != t)
                a = joints[a].parent;
              /* (Only where a joint from ref's body up moves: else the chain is the same.) */
              for (int u = a; u >= 0 && target->base < 0; u = joints[u].parent)
                if (joints[u].n_dof > 0)
                  target->base = t;
              if (a != t && t != target->effector)
                note_once (L, NULL, ik->node->file, ik->node->pos,
                           _("the IK target's “ref” is not on a body up the chain from "
                             "“end”; the chain runs to the root"));
            }
        }
      /* The target is for the end connector, a point fixed in the effector joint's frame
       * (effector_offset.pos): the keyframe holds that point's target position, and the
       * track carries the point, so the solver moves it (not the joint's origin) onto the
       * target whatever orientation the joint takes. The orientation is the joint frame's
       * where the connector has the target's; position only: the initial one, for display
       * (the track is position-only then). */
      target->effector_target.pos = target->target.pos;
      if (target->enable_orientation)
        {
          KmMat3 back;

          km_mat3_transpose (&target->effector_offset.rot, &back);
          km_mat3_mul (&target->target.rot, &back, &target->effector_target.rot);
        }
      else
        target->effector_target.rot = world[target->effector].rot;
      /* A KmTargetTrack keyframe must be finite. With every length bounded
       * (KM_SCENEBUILDER_MAX_LENGTH) it is; checked all the same, since a track that cannot
       * be made is otherwise only found after the load. */
      if (!km_vec3_is_finite (target->effector_target.pos) ||
          !km_vec3_is_finite (target->target.pos))
        {
          note_once (L, NULL, ik->node->file, ik->node->pos,
                     _("the IK target is not finite at the initial configuration; it is left "
                       "out"));
          ik_free (target);
          continue;
        }
      g_ptr_array_add (model->ik_targets, target);
    }
}

/*
 * specs/scenebuilder.md 8.2 step 6: a jointed body's own trn/rot are only an initial guess;
 * its pose comes from forward kinematics at q = pos. Where a file states a body's position
 * (trn) or orientation (rot) and it disagrees with FK by more than 1e-6 (metre, radian),
 * that is mentioned once per load, at the first such body in document order. Only what is
 * stated is compared: a body with trn alone states no orientation, and one with neither
 * (the usual "every link at the origin" of real files) states nothing.
 */
#define POSE_TOLERANCE 1e-6

static void
note_pose_disagreement (Loader              *L,
                        GPtrArray           *bodies,
                        const gboolean      *is_root,
                        const int           *body_joint,
                        GArray              *infos,
                        KmScenebuilderModel *model)
{
  g_autofree KmTransform *world = NULL;
  Obj *first = NULL;
  double first_distance = 0.0, first_angle = 0.0;
  guint others = 0;
  g_autofree char *path = NULL;
  g_autofree char *text = NULL;

  world = g_new (KmTransform, MAX (km_skeleton_get_n_joints (model->skeleton), 1));
  km_skeleton_forward_kinematics (model->skeleton, model->initial_q, NULL, world);
  for (guint b = 0; b < bodies->len; b++)
    {
      Obj *o = bodies->pdata[b];
      JointInfo *info;
      KmTransform stated, fk;
      double distance = 0.0, angle = 0.0;
      int t;

      if (is_root[b] || body_joint[b] < 0 || (!o->given_trn && !o->given_rot))
        continue;
      info = &g_array_index (infos, JointInfo, body_joint[b]);
      t = km_skeleton_find_joint (model->skeleton, info->name);
      if (t < 0)
        continue;
      /* Both are the body frame in the world: the stated one through its spatial
       * ancestors, the computed one as the joint frame times the body offset. */
      pose_below (o, NULL, &stated);
      km_transform_mul (&world[t], &info->body_offset, &fk);
      if (o->given_trn)
        distance = km_vec3_length (km_vec3_sub (stated.pos, fk.pos));
      if (o->given_rot)
        angle = km_mat3_rotation_angle (&stated.rot, &fk.rot);
      if (distance <= POSE_TOLERANCE && angle <= POSE_TOLERANCE)
        continue;
      if (first == NULL)
        {
          first = o;
          first_distance = distance;
          first_angle = angle;
        }
      else
        others++;
    }
  if (first == NULL)
    return;
  path = obj_path (first);
  if (first_distance > POSE_TOLERANCE && first_angle > POSE_TOLERANCE)
    /* Translators: a body's name, a distance in metres, an angle in degrees. */
    text = g_strdup_printf (_("the pose of body “%s” disagrees with forward kinematics from "
                              "the joints by %.3g m and %.3g°; the joints are used"),
                            path, first_distance, first_angle * 180.0 / G_PI);
  else if (first_distance > POSE_TOLERANCE)
    /* Translators: a body's name, a distance in metres. */
    text = g_strdup_printf (_("the position of body “%s” disagrees with forward kinematics "
                              "from the joints by %.3g m; the joints are used"),
                            path, first_distance);
  else
    /* Translators: a body's name, an angle in degrees. */
    text = g_strdup_printf (_("the orientation of body “%s” disagrees with forward kinematics "
                              "from the joints by %.3g°; the joints are used"),
                            path, first_angle * 180.0 / G_PI);
  if (others > 0)
    {
      /* Translators: added to the message above. */
      g_autofree char *more = g_strdup_printf (ngettext (" (and %u more body)",
                                                         " (and %u more bodies)", others),
                                               others);
      char *longer = g_strconcat (text, more, NULL);

      g_free (text);
      text = longer;
    }
  note_once (L, "pose-disagreement", first->node->file, first->node->pos, "%s", text);
}

/* A connector's @local axis in its body: rounding left by the rotation (cos 90° is
 * 6e-17, not 0) is dropped, so "rot=-90@x" gives the axis 0,1,0 that was meant. */
static KmVec3
connector_axis (const KmTransform *connector,
                KmVec3             local)
{
  KmVec3 axis = km_mat3_mul_vec3 (&connector->rot, local);

  axis.x = fabs (axis.x) < 1e-12 ? 0.0 : axis.x;
  axis.y = fabs (axis.y) < 1e-12 ? 0.0 : axis.y;
  axis.z = fabs (axis.z) < 1e-12 ? 0.0 : axis.z;
  return km_vec3_normalize (axis);
}

static KmScenebuilderModel *
build_model (Loader  *L,
             GError **error)
{
  g_autoptr(GPtrArray) bodies = g_ptr_array_new ();
  g_autoptr(GArray) edges = g_array_new (FALSE, TRUE, sizeof (Edge));
  g_autoptr(GArray) steps = g_array_new (FALSE, TRUE, sizeof (Step));
  g_autoptr(GArray) roots = g_array_new (FALSE, FALSE, sizeof (int));
  g_autoptr(GArray) infos = g_array_new (FALSE, TRUE, sizeof (JointInfo));
  g_autoptr(GArray) linked = g_array_new (FALSE, TRUE, sizeof (LinkedGear));
  g_autoptr(GHashTable) counts = g_hash_table_new (g_str_hash, g_str_equal);
  g_autoptr(KmSkeletonBuilder) builder = km_skeleton_builder_new ();
  g_autoptr(GPtrArray) strings = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GHashTable) taken = g_hash_table_new (g_str_hash, g_str_equal);
  g_autoptr(GHashTable) next = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  Naming naming = { counts, taken, next, strings };
  KmSkeletonProblem problem = { 0 };
  g_autoptr(GError) build_error = NULL;
  g_autofree int *uf = NULL;
  g_autofree int *best = NULL;
  g_autofree gboolean *is_plug = NULL;
  g_autofree gboolean *has_auto = NULL;
  g_autofree gboolean *visited = NULL;
  g_autofree int *body_joint = NULL;
  g_autofree int *queue = NULL;
  g_autofree int *first_plug = NULL;
  g_autofree gboolean *is_root = NULL;
  Obj *doc = L->root->children->len > 0 ? g_ptr_array_index (L->root->children, 0) : NULL;
  KmScenebuilderModel *model;
  guint nb;

  g_array_set_clear_func (infos, joint_info_clear);

  for (guint i = 0; i < L->objects->len; i++)
    {
      Obj *o = g_ptr_array_index (L->objects, i);

      if (o->type == OBJ_BODY)
        {
          o->body_index = (int) bodies->len;
          g_ptr_array_add (bodies, o);
          if (body_of (o) != NULL)
            note_once (L, "nested-body", o->node->file, o->node->pos,
                       _("a body inside a body is an independent body (no joint is implied)"));
        }
    }
  nb = bodies->len;
  if (nb == 0)
    {
      SbFile *file = g_ptr_array_index (L->files, 0);

      km_parse_error_set (error, KM_PARSE_ERROR_INVALID, file->path, file->root->pos,
                          _("the scene has no <body>, so there is no kinematic tree"));
      return NULL;
    }

  for (guint i = 0; i < L->objects->len; i++)
    {
      Obj *o = g_ptr_array_index (L->objects, i);
      Edge e = { 0 };
      Obj *sb, *pb;

      if (!is_joint_type (o->type))
        continue;
      if (!o->enabled)
        {
          note_once (L, NULL, o->node->file, o->node->pos,
                     _("the joint is disabled (enabled=\"false\") and left out"));
          continue;
        }
      /* 8.2 step 1: only joints whose connectors resolve, on two bodies, count. */
      if (o->broken ||
          !connector_end (L, o, "sock", _("the joint is left out"), &sb, &e.sock) ||
          !connector_end (L, o, "plug", _("the joint is left out"), &pb, &e.plug))
        continue;
      if (sb == pb)
        {
          g_autofree char *key = g_strdup_printf ("same-body:%s:%u:%u", o->node->file->path,
                                                  o->node->pos.line, o->node->pos.column);

          note_once (L, key, o->node->file, o->node->pos,
                     _("the sock and plug of “%s” are on the same body; the joint is left "
                       "out"), o->name);
          continue;
        }
      if (o->type == OBJ_FREEJOINT)
        {
          note_once (L, NULL, o->node->file, o->node->pos,
                     /* A plug body no other joint holds is then a root of its own,
                      * which the roots' warning covers. */
                     _("a freejoint between bodies is dropped; it does not attach its "
                       "plug body"));
          continue;
        }
      e.joint = o;
      e.sock_body = sb->body_index;
      e.plug_body = pb->body_index;
      e.skeleton[0] = e.skeleton[1] = -1;
      e.sign = 1.0;
      g_array_append_val (edges, e);
    }

  uf = g_new (int, nb);
  is_plug = g_new0 (gboolean, nb);
  has_auto = g_new0 (gboolean, nb);
  best = g_new (int, nb);
  for (guint b = 0; b < nb; b++)
    {
      uf[b] = (int) b;
      best[b] = -1;
    }
  for (guint i = 0; i < edges->len; i++)
    {
      Edge *e = &g_array_index (edges, Edge, i);

      uf[find_root (uf, e->sock_body)] = find_root (uf, e->plug_body);
      is_plug[e->plug_body] = TRUE;
    }
  for (guint b = 0; b < nb; b++)
    if (((Obj *) bodies->pdata[b])->auto_tree)
      has_auto[find_root (uf, b)] = TRUE;
  /* Root of each group: auto_tree, else never a plug; then fixed; then document order. */
  for (guint b = 0; b < nb; b++)
    {
      Obj *o = bodies->pdata[b];
      int c = find_root (uf, b);
      int score = (has_auto[c] ? o->auto_tree : !is_plug[b]) * 2 + (!o->dynamical || o->stationary);

      if (best[c] < 0)
        best[c] = (int) b;
      else
        {
          Obj *cur = bodies->pdata[best[c]];
          int cur_score = (has_auto[c] ? cur->auto_tree : !is_plug[best[c]]) * 2 +
                          (!cur->dynamical || cur->stationary);

          if (score > cur_score)
            best[c] = (int) b;
        }
    }
  for (guint b = 0; b < nb; b++)
    if (best[find_root (uf, b)] == (int) b)
      g_array_append_val (roots, b);

  /*
   * Breadth-first from the roots. A body's parent joint is the first joint in document
   * order that plugs it (Scenebuilder's IK: if(!plugBody->parent) plugBody->SetParent…),
   * so the first pass follows only those; the second pass takes what is left (joints met
   * from their plug side, bodies whose first joint cannot be reached from the root).
   */
  visited = g_new0 (gboolean, nb);
  queue = g_new (int, nb);
  first_plug = g_new (int, nb);
  for (guint b = 0; b < nb; b++)
    first_plug[b] = -1;
  for (guint i = 0; i < edges->len; i++)
    {
      Edge *e = &g_array_index (edges, Edge, i);

      if (first_plug[e->plug_body] < 0)
        first_plug[e->plug_body] = (int) i;
    }
  for (guint pass = 0; pass < 2; pass++)
    {
      guint head = 0, tail = 0;

      /* The bodies reached so far, in the order they were reached. */
      for (guint r = 0; r < roots->len; r++)
        {
          queue[tail++] = g_array_index (roots, int, r);
          visited[g_array_index (roots, int, r)] = TRUE;
        }
      for (guint s = 0; s < steps->len; s++)
        queue[tail++] = g_array_index (steps, Step, s).child_body;
      while (head < tail)
        {
          int b = queue[head++];

          for (guint i = 0; i < edges->len; i++)
            {
              Edge *e = &g_array_index (edges, Edge, i);
              Step step = { i, FALSE, b, -1 };

              if (e->used)
                continue;
              if (e->sock_body == b && !visited[e->plug_body] &&
                  (pass > 0 || first_plug[e->plug_body] == (int) i))
                step.child_body = e->plug_body;
              else if (pass > 0 && e->plug_body == b && !visited[e->sock_body] &&
                       e->joint->type != OBJ_UNIVERSALJOINT)
                {
                  step.child_body = e->sock_body;
                  step.inverted = TRUE;
                  e->sign = -1.0;
                  note_once (L, NULL, e->joint->node->file, e->joint->node->pos,
                             _("the plug side of “%s” is nearer the root; the joint is "
                               "inverted"), e->joint->name);
                }
              else
                continue;
              e->used = TRUE;
              visited[step.child_body] = TRUE;
              queue[tail++] = step.child_body;
              g_array_append_val (steps, step);
            }
        }
    }
  for (guint i = 0; i < edges->len; i++)
    {
      Edge *e = &g_array_index (edges, Edge, i);

      if (!e->used)
        note_once (L, NULL, e->joint->node->file, e->joint->node->pos,
                   _("“%s” closes a kinematic loop; it is left out of the tree"),
                   e->joint->name);
    }

  /* Names. */
  for (guint r = 0; r < roots->len; r++)
    count_name (counts, ((Obj *) bodies->pdata[g_array_index (roots, int, r)])->name);
  for (guint s = 0; s < steps->len; s++)
    {
      Obj *j = g_array_index (edges, Edge, g_array_index (steps, Step, s).edge).joint;

      if (j->type == OBJ_UNIVERSALJOINT)
        {
          char *y = g_strconcat (j->name, "_y", NULL);
          char *x = g_strconcat (j->name, "_x", NULL);

          g_ptr_array_add (strings, y);
          g_ptr_array_add (strings, x);
          count_name (counts, y);
          count_name (counts, x);
        }
      else
        count_name (counts, j->name);
    }

  body_joint = g_new (int, nb);
  for (guint b = 0; b < nb; b++)
    body_joint[b] = -1;
  {
    int parent_joint = -1;
    const char *parent_name = NULL;

    if (roots->len > 1)
      {
        char *name = g_strdup (doc->name);
        KmTransform identity;

        while (g_hash_table_contains (counts, name))
          {
            char *longer = g_strconcat (name, "_root", NULL);

            g_free (name);
            name = longer;
          }
        g_ptr_array_add (strings, name);
        km_transform_identity (&identity);
        parent_joint = (int) add_builder_joint (L, builder, infos, &naming, doc->node, name,
                                                name, KM_JOINT_FIXED, NULL, &identity);
        parent_name = g_array_index (infos, JointInfo, parent_joint).name;
      }
    for (guint r = 0; r < roots->len; r++)
      {
        int b = g_array_index (roots, int, r);
        Obj *o = bodies->pdata[b];
        gboolean fixed = !o->dynamical || o->stationary;
        char *path = obj_path (o);
        KmTransform world;
        guint j;

        g_ptr_array_add (strings, path);
        pose_below (o, NULL, &world);
        j = add_builder_joint (L, builder, infos, &naming, o->node, o->name, path,
                               fixed || parent_joint >= 0 ? KM_JOINT_FIXED : KM_JOINT_FREE,
                               parent_name, &world);
        if (!fixed && parent_joint >= 0)
          note_once (L, NULL, o->node->file, o->node->pos,
                     _("the floating body “%s” is fixed at its initial pose (the scene has "
                       "several roots, a skeleton only one)"), o->name);
        g_array_index (infos, JointInfo, j).body_path = g_strdup (path);
        body_joint[b] = (int) j;
      }
  }

  for (guint s = 0; s < steps->len; s++)
    {
      Step *step = &g_array_index (steps, Step, s);
      Edge *e = &g_array_index (edges, Edge, step->edge);
      Obj *jo = e->joint;
      Obj *child = bodies->pdata[step->child_body];
      int pj = body_joint[step->parent_body];
      JointInfo *pinfo = &g_array_index (infos, JointInfo, pj);
      g_autofree char *parent_name = g_strdup (pinfo->name);
      KmTransform parent_offset = pinfo->body_offset;
      const KmTransform *S = step->inverted ? &e->plug : &e->sock;
      const KmTransform *C = step->inverted ? &e->sock : &e->plug;
      KmTransform Sp, frame, child_offset;
      KmMat3 rct;
      double sign = step->inverted ? -1.0 : 1.0;
      g_autofree char *path = obj_path (jo);
      JointInfo *info;
      guint j;

      km_transform_mul (&parent_offset, S, &Sp);
      /* Joint frame: the child body's orientation, origin at the plug connector. */
      km_mat3_transpose (&C->rot, &rct);
      frame.pos = Sp.pos;
      km_mat3_mul (&Sp.rot, &rct, &frame.rot);
      km_mat3_identity (&child_offset.rot);
      child_offset.pos = km_vec3_scale (C->pos, -1.0);

      switch (jo->type)
        {
        case OBJ_HINGE:
        case OBJ_SLIDER:
          j = add_builder_joint (L, builder, infos, &naming, jo->node, jo->name, path,
                                 jo->type == OBJ_HINGE ? KM_JOINT_REVOLUTE : KM_JOINT_PRISMATIC,
                                 parent_name, &frame);
          km_skeleton_builder_set_axis (builder, j, connector_axis (C, km_vec3 (0, 0, 1)));
          if (limited (jo->range[0]) && limited (jo->range[1]))
            km_skeleton_builder_set_limit (builder, j, 0,
                                           sign > 0 ? jo->range[0] : -jo->range[1],
                                           sign > 0 ? jo->range[1] : -jo->range[0]);
          info = &g_array_index (infos, JointInfo, j);
          info->q[0] = sign * jo->pos[0];
          info->n_q = 1;
          if (limited (jo->vrange[0]) && limited (jo->vrange[1]))
            info->vlimit = (KmLimit) { TRUE, sign > 0 ? jo->vrange[0] : -jo->vrange[1],
                                       sign > 0 ? jo->vrange[1] : -jo->vrange[0] };
          info->effort = jo->flim;
          /* Kept for writers (KmJoint.max_effort, max_velocity: URDF <limit effort
           * velocity>), in SI units: vrange and flim were read with the joint's dimensions
           * (R/T or L/T, ML²/T² or ML/T²) under the units in force (2.5). flim is a
           * magnitude already; a velocity range becomes the speed allowed both ways, as
           * for a .body joint_velocity_range. */
          if (limited (jo->flim))
            km_skeleton_builder_set_max_effort (builder, j, fabs (jo->flim));
          if (limited (MIN (fabs (jo->vrange[0]), fabs (jo->vrange[1]))))
            km_skeleton_builder_set_max_velocity (builder, j,
                                                  MIN (fabs (jo->vrange[0]),
                                                       fabs (jo->vrange[1])));
          break;
        case OBJ_BALLJOINT:
          {
            KmQuat q = step->inverted ? km_quat_conjugate (jo->ball_pos) : jo->ball_pos;
            KmVec3 euler = km_quat_to_euler_xyz (q);

            j = add_builder_joint (L, builder, infos, &naming, jo->node, jo->name, path,
                                   KM_JOINT_SPHERICAL, parent_name, &Sp);
            km_transform_inverse (C, &child_offset);
            info = &g_array_index (infos, JointInfo, j);
            info->q[0] = euler.x;
            info->q[1] = euler.y;
            info->q[2] = euler.z;
            info->n_q = 3;
          }
          break;
        case OBJ_UNIVERSALJOINT:
          {
            g_autofree char *yname = g_strconcat (jo->name, "_y", NULL);
            g_autofree char *ypath = g_strconcat (path, "_y", NULL);
            g_autofree char *xname = g_strconcat (jo->name, "_x", NULL);
            g_autofree char *xpath = g_strconcat (path, "_x", NULL);
            g_autofree char *first = NULL;
            KmTransform identity;
            guint j0;

            /* Ry(q1) · Rx(q0): the outer axis is the sock's y, the inner one x. */
            j0 = add_builder_joint (L, builder, infos, &naming, jo->node, yname, ypath,
                                    KM_JOINT_REVOLUTE, parent_name, &frame);
            km_skeleton_builder_set_axis (builder, j0, connector_axis (C, km_vec3 (0, 1, 0)));
            g_array_index (infos, JointInfo, j0).q[0] = jo->pos[1];
            g_array_index (infos, JointInfo, j0).n_q = 1;
            e->skeleton[1] = (int) j0;
            first = g_strdup (g_array_index (infos, JointInfo, j0).name);
            km_transform_identity (&identity);
            j = add_builder_joint (L, builder, infos, &naming, jo->node, xname, xpath,
                                   KM_JOINT_REVOLUTE, first, &identity);
            km_skeleton_builder_set_axis (builder, j, connector_axis (C, km_vec3 (1, 0, 0)));
            info = &g_array_index (infos, JointInfo, j);
            info->q[0] = jo->pos[0];
            info->n_q = 1;
          }
          break;
        case OBJ_FIXJOINT:
        default:
          j = add_builder_joint (L, builder, infos, &naming, jo->node, jo->name, path,
                                 KM_JOINT_FIXED, parent_name, &frame);
          info = &g_array_index (infos, JointInfo, j);
          break;
        }
      info->body_offset = child_offset;
      info->body_path = obj_path (child);
      e->skeleton[0] = (int) j;
      body_joint[step->child_body] = (int) j;
    }

  add_shapes (L, builder, infos, body_joint);
  link_gears (L, edges, infos, builder, linked);
  /* The model's name, kept for writers (a .body's "name"): the scene's own namespace's
   * name, else the file's stem, as Choreonoid names a body without one (not the root
   * link's name, which the writers fall back on for a skeleton without a model name). */
  if (doc != NULL && doc->type == OBJ_NAMESPACE && doc->node != NULL
      && node_attr (doc->node, "name", NULL) != NULL && doc->name[0] != '\0')
    km_skeleton_builder_set_model_name (builder, doc->name);
  else
    {
      g_autofree char *stem = g_path_get_basename (L->path);
      char *dot = strrchr (stem, '.');

      if (dot != NULL && dot != stem)
        *dot = '\0';
      km_skeleton_builder_set_model_name (builder, stem);
    }

  model = g_new0 (KmScenebuilderModel, 1);
  model->gears = g_ptr_array_new_with_free_func ((GDestroyNotify) gear_free);
  model->ik_targets = g_ptr_array_new_with_free_func ((GDestroyNotify) ik_free);
  {
    GearUnlink unlink = { L, linked };

    km_skeleton_builder_set_unlink_func (builder, gear_unlinked, &unlink);
    model->skeleton = km_skeleton_builder_build (builder, &problem, &build_error);
    km_skeleton_builder_set_unlink_func (builder, NULL, NULL);
  }
  if (model->skeleton == NULL)
    {
      /* What the builder refuses (the repairs above should leave nothing) is said at the
       * element of the refused joint; too many joints at the last one. */
      Node *at = g_array_index (infos, JointInfo, MIN (problem.joint, infos->len - 1)).node;

      km_parse_error_set (error,
                          g_error_matches (build_error, KM_SKELETON_ERROR,
                                           KM_SKELETON_ERROR_TOO_LARGE)
                          ? KM_PARSE_ERROR_LIMIT : KM_PARSE_ERROR_INVALID,
                          at->file->path, at->pos, "%s", build_error->message);
      km_scenebuilder_model_free (model);
      return NULL;
    }
  {
    guint n = km_skeleton_get_n_joints (model->skeleton);

    model->initial_q = g_new0 (double, MAX (km_skeleton_get_n_dof (model->skeleton), 1));
    model->body_paths = g_new0 (char *, n + 1);
    model->body_offsets = g_new (KmTransform, n);
    model->velocity_limits = g_new (KmLimit, n);
    model->effort_limits = g_new (double, n);
    for (guint t = 0; t < n; t++)
      {
        const KmJoint *joint = km_skeleton_get_joint (model->skeleton, t);
        JointInfo *info = &g_array_index (infos, JointInfo, joint->file_index);

        for (guint k = 0; k < joint->n_dof && k < info->n_q; k++)
          model->initial_q[joint->dof_index + k] = info->q[k];
        model->body_paths[t] = g_strdup (info->body_path ? info->body_path : "");
        model->body_offsets[t] = info->body_offset;
        model->velocity_limits[t] = info->vlimit;
        model->effort_limits[t] = info->effort;
      }
  }
  add_gears (linked, infos, model);
  /* The initial configuration satisfies every coupling (a position gear's pos values may
   * disagree: the gear wins). */
  for (guint i = 0; i < model->gears->len; i++)
    {
      const KmScenebuilderGear *g = g_ptr_array_index (model->gears, i);
      const KmJoint *up = km_skeleton_get_joint (model->skeleton, g->up);
      const KmJoint *down = km_skeleton_get_joint (model->skeleton, g->down);
      double q = g->ratio * model->initial_q[up->dof_index] + g->offset;

      if (fabs (q - model->initial_q[down->dof_index]) > 1e-9)
        {
          const LinkedGear *l = &g_array_index (linked, LinkedGear, i);

          note_once (L, NULL, l->gear->node->file, l->gear->node->pos,
                     _("the initial position of “%s” does not satisfy the gear “%s”; the "
                       "gear sets it"), down->name, g->name);
        }
    }
  km_skeleton_apply_mimic (model->skeleton, model->initial_q);
  is_root = g_new0 (gboolean, nb);
  for (guint r = 0; r < roots->len; r++)
    is_root[g_array_index (roots, int, r)] = TRUE;
  note_pose_disagreement (L, bodies, is_root, body_joint, infos, model);
  add_iks (L, body_joint, infos, model);
  return model;
}

/* ------------------------------------------------------------------------------------------ */
/* Public API                                                                                 */

/**
 * km_scenebuilder_load:
 * @path: the path as given (messages; imported files are relative to its directory)
 * @data: the file's contents
 *
 * Warnings (skipped elements, renamed objects, loops) go to km_parse_warning().
 *
 * Returns: (transfer full) (nullable): the model, or %NULL with @error set in
 *   %KM_PARSE_ERROR
 */
KmScenebuilderModel *
km_scenebuilder_load (const char  *path,
                      const char  *data,
                      gsize        length,
                      GError     **error)
{
  Loader L = { 0 };
  SbFile *file = NULL;
  KmScenebuilderModel *model = NULL;

  g_return_val_if_fail (path != NULL, NULL);
  g_return_val_if_fail (data != NULL || length == 0, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  L.path = path;
  L.files = g_ptr_array_new_with_free_func ((GDestroyNotify) sb_file_free);
  L.contexts = g_ptr_array_new_with_free_func ((GDestroyNotify) ctx_free);
  L.import_stack = g_ptr_array_new ();
  L.import_sites = g_array_new (FALSE, FALSE, sizeof (ImportSite));
  L.noted = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  L.objects = g_ptr_array_new ();
  L.units = KM_SB_UNITS_SI;
  L.root = g_new0 (Obj, 1);
  L.root->type = OBJ_ROOT;
  L.root->name = g_strdup ("");
  L.root->children = g_ptr_array_new_with_free_func ((GDestroyNotify) obj_free);
  L.root->links = g_ptr_array_new_with_free_func ((GDestroyNotify) link_free);
  L.cur = L.root;
  g_ptr_array_add (L.contexts, ctx_new ());

  if (load_file (&L, path, data ? data : "", length, &file, error) &&
      process_node (&L, file->root, error))
    model = build_model (&L, error);

  obj_free (L.root);
  g_ptr_array_unref (L.objects);
  g_hash_table_unref (L.noted);
  g_array_unref (L.import_sites);
  g_ptr_array_unref (L.import_stack);
  g_ptr_array_unref (L.contexts);
  g_ptr_array_unref (L.files);
  return model;
}

/* The first element's name, past a BOM, the XML declaration, comments and a DOCTYPE. */
static gboolean
first_element (const char *data,
               gsize       length,
               char       *name,
               gsize       size)
{
  gsize p = 0, n = 0;

  if (length >= 3 && memcmp (data, "\xef\xbb\xbf", 3) == 0)
    p = 3;
  while (p < length)
    {
      if (g_ascii_isspace (data[p]))
        p++;
      else if (p + 1 < length && data[p] == '<' && data[p + 1] == '?')
        p = skip_past (data, length, p + 2, "?>");
      else if (p + 3 < length && memcmp (data + p, "<!--", 4) == 0)
        p = skip_past (data, length, p + 4, "-->");
      else if (length - p >= 9 && memcmp (data + p, "<!DOCTYPE", 9) == 0)
        {
          /* (an internal subset's declarations end in ">" too) */
          gsize subset, entity;

          p = km_markup_text_skip_doctype (data, length, p, &subset, &entity);
          if (p == 0)
            return FALSE;
        }
      else if (p + 1 < length && data[p] == '<' && data[p + 1] == '!')
        p = skip_past (data, length, p + 2, ">");
      else
        break;
    }
  if (p >= length || data[p] != '<')
    return FALSE;
  p++;
  while (p < length && n + 1 < size && (g_ascii_isalnum (data[p]) || data[p] == '_' ||
                                        data[p] == '-' || data[p] == ':'))
    name[n++] = data[p++];
  name[n] = '\0';
  return n > 0 && p < length && (g_ascii_isspace (data[p]) || data[p] == '>' || data[p] == '/');
}

/**
 * km_scenebuilder_sniff:
 *
 * Returns: 90 for XML whose document element is <namespace> (every Scenebuilder scene),
 *   60 for another Scenebuilder object element, 0 otherwise (URDF's <robot> included)
 */
int
km_scenebuilder_sniff (const char *data,
                       gsize       length)
{
  char name[32];

  g_return_val_if_fail (data != NULL || length == 0, 0);

  if (data == NULL || !first_element (data, MIN (length, 65536), name, sizeof name))
    return 0;
  if (g_str_equal (name, "namespace"))
    return 90;
  for (guint i = 0; i < G_N_ELEMENTS (object_types); i++)
    if (g_str_equal (name, object_types[i].name) && object_types[i].type != OBJ_SKIPPED)
      return 60;
  return 0;
}

static gpointer
format_load (const char  *path,
             GBytes      *contents,
             GError     **error)
{
  gsize length = 0;
  const char *data = g_bytes_get_data (contents, &length);
  g_autoptr(KmScenebuilderModel) model = km_scenebuilder_load (path, data ? data : "", length,
                                                               error);

  return model ? g_steal_pointer (&model->skeleton) : NULL;
}

/* Each ik element becomes a targets track: its effector, the end connector's point in the
 * effector's frame (position-only without enable_rot) and one keyframe at frame 0. */
static gpointer
format_load_model (const char     *path,
                   GBytes         *contents,
                   KmModelExtras  *extras,
                   GError        **error)
{
  gsize length = 0;
  const char *data = g_bytes_get_data (contents, &length);
  g_autoptr(KmScenebuilderModel) model = km_scenebuilder_load (path, data ? data : "", length,
                                                               error);

  if (model == NULL)
    return NULL;
  for (guint i = 0; i < model->ik_targets->len; i++)
    {
      const KmScenebuilderIk *ik = g_ptr_array_index (model->ik_targets, i);
      const KmJoint *effector = km_skeleton_get_joint (model->skeleton, ik->effector);
      KmTargetKeyframe keyframe = { 0 };
      KmTargetTrack *track;
      GError *track_error = NULL;

      keyframe.frame = 0;
      keyframe.position = ik->effector_target.pos;
      keyframe.orientation = km_mat3_to_quat (&ik->effector_target.rot);
      track = km_target_track_new (&keyframe, 1, effector->name,
                                   KM_TARGET_TRACK_DEFAULT_FRAME_RATE, &track_error);
      if (track != NULL)
        {
          KmTargetTrack *aimed = km_target_track_with_tool (track, ik->effector_offset.pos,
                                                            !ik->enable_orientation);

          km_target_track_unref (track);
          track = aimed;
          if (track != NULL && ik->base >= 0)
            {
              aimed = km_target_track_with_base (
                track, km_skeleton_get_joint (model->skeleton, ik->base)->name);
              km_target_track_unref (track);
              track = aimed;
            }
          if (track == NULL)
            g_set_error_literal (&track_error, KM_TARGET_TRACK_ERROR,
                                 KM_TARGET_TRACK_ERROR_BAD_VALUE,
                                 _("the end connector is not a finite point"));
        }
      if (track == NULL)
        {
          const char *included_from = ((const IkTarget *) ik)->included_from;
          g_autofree char *text =
            /* Translators: %s is the name of an <ik> element, then why it was left out */
            g_strdup_printf (_("the IK target “%s” is left out: %s"), ik->name,
                             track_error->message);

          km_parse_warning (ik->file, ik->pos, "%s%s", text,
                            included_from != NULL ? included_from : "");
          g_clear_error (&track_error);
          continue;
        }
      g_ptr_array_add (extras->targets, track);
      g_ptr_array_add (extras->target_names, g_strdup (ik->name));
    }
  /* The joints' pos values (gears applied), which the body starts at. */
  extras->n_initial_q = km_skeleton_get_n_dof (model->skeleton);
  if (extras->n_initial_q > 0)
    extras->initial_q = g_memdup2 (model->initial_q, extras->n_initial_q * sizeof (double));
  return g_steal_pointer (&model->skeleton);
}

const KmFormat km_format_scenebuilder = {
  .name = "SCENEBUILDER-XML",
  .kind = KM_FILE_KIND_MODEL,
  .description = N_("Scenebuilder XML scene"),
  .sniff = km_scenebuilder_sniff,
  .load = format_load,
  .free_result = (void (*) (gpointer)) km_skeleton_unref,
  .describe = km_skeleton_json_describe,
  .load_model = format_load_model,
};
