/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 */

#define G_LOG_DOMAIN "km-mesh-loader"

#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <glib/gi18n-lib.h>
#include <glib/gstdio.h>

#include "km-mesh-loader.h"
#include "km-format.h"

#include "km-mesh-private.h"
#include "km-number.h"

/* ---- tokenizer ---------------------------------------------------------------------- */

void
_km_lexer_init (KmLexer    *lexer,
                const char *path,
                const char *text,
                gsize       length)
{
  memset (lexer, 0, sizeof *lexer);
  lexer->path = path;
  lexer->text = text;
  lexer->length = length;
  lexer->line = 1;
  lexer->punct = "";
  lexer->comment = '#';
  lexer->tok = text;
  lexer->tok_line = 1;
}

/* A line ends at LF, and at a CR that no LF follows: old Mac files end lines with a lone
 * CR, which VRML97 (and the OBJ and STL readers) take as a line end too. In CRLF the CR
 * is skipped as white space and the LF ends the line, once. */
static inline gboolean
is_line_end (const char *t,
             gsize       n,
             gsize       i)
{
  return t[i] == '\n' || (t[i] == '\r' && (i + 1 >= n || t[i + 1] != '\n'));
}

/* Past the line end at `pos` (one byte, LF or a lone CR). */
static void
lexer_newline (KmLexer *lexer)
{
  lexer->pos++;
  lexer->line++;
  lexer->line_start = lexer->pos;
}

gboolean
_km_lexer_next (KmLexer *lexer)
{
  const char *t = lexer->text;
  gsize n = lexer->length;

  for (;;)
    {
      while (lexer->pos < n && !is_line_end (t, n, lexer->pos) &&
             (g_ascii_isspace (t[lexer->pos]) || t[lexer->pos] == ','))
        lexer->pos++;
      if (lexer->pos >= n)
        break;
      if (is_line_end (t, n, lexer->pos))
        {
          if (lexer->line_mode)
            break;
          lexer_newline (lexer);
          continue;
        }
      if (lexer->comment && t[lexer->pos] == lexer->comment)
        {
          while (lexer->pos < n && !is_line_end (t, n, lexer->pos))
            lexer->pos++;
          continue;
        }
      break;
    }
  lexer->tok = t + lexer->pos;
  lexer->tok_line = lexer->line;
  lexer->tok_line_start = lexer->line_start;
  lexer->tok_len = 0;
  if (lexer->pos >= n || is_line_end (t, n, lexer->pos))
    return FALSE;

  if (strchr (lexer->punct, t[lexer->pos]) != NULL && t[lexer->pos] != '\0')
    {
      lexer->pos++;
      lexer->tok_len = 1;
      return TRUE;
    }
  if (t[lexer->pos] == '"' && lexer->punct[0] != '\0')
    {
      /* A VRML string: up to the closing quote, \" escapes. */
      gsize i = lexer->pos + 1;

      while (i < n && t[i] != '"')
        {
          if (t[i] == '\\' && i + 1 < n)
            i++;
          if (is_line_end (t, n, i))
            {
              lexer->line++;
              lexer->line_start = i + 1;
            }
          i++;
        }
      lexer->tok_len = MIN (i + 1, n) - lexer->pos;
      lexer->pos = MIN (i + 1, n);
      return TRUE;
    }
  while (lexer->pos < n && !g_ascii_isspace (t[lexer->pos]) && t[lexer->pos] != ',' &&
         (lexer->comment == 0 || t[lexer->pos] != lexer->comment) &&
         (t[lexer->pos] == '\0' || strchr (lexer->punct, t[lexer->pos]) == NULL))
    lexer->pos++;
  lexer->tok_len = (gsize) (t + lexer->pos - lexer->tok);
  return TRUE;
}

gboolean
_km_lexer_next_line (KmLexer *lexer)
{
  while (lexer->pos < lexer->length &&
         !is_line_end (lexer->text, lexer->length, lexer->pos))
    lexer->pos++;
  if (lexer->pos >= lexer->length)
    return FALSE;
  lexer_newline (lexer);
  return TRUE;
}

gboolean
_km_lexer_is (KmLexer    *lexer,
              const char *word)
{
  gsize len = strlen (word);

  return lexer->tok_len == len && memcmp (lexer->tok, word, len) == 0;
}

KmSourcePos
_km_lexer_tok_pos (KmLexer *lexer)
{
  const char *start = lexer->text + lexer->tok_line_start;
  glong column;

  if (!g_utf8_validate (start, lexer->tok - start, NULL))
    column = lexer->tok - start;
  else
    column = g_utf8_strlen (start, lexer->tok - start);
  return (KmSourcePos) { lexer->tok_line, (guint) column + 1 };
}

gboolean
_km_lexer_number (KmLexer  *lexer,
                  double   *out,
                  GError  **error)
{
  char buffer[64];
  char *end;
  double v;

  if (lexer->tok_len > 0 && lexer->tok_len < sizeof buffer)
    {
      memcpy (buffer, lexer->tok, lexer->tok_len);
      buffer[lexer->tok_len] = '\0';
      if (_km_ascii_strtod_finite (buffer, &end, &v) && *end == '\0')
        {
          *out = v;
          return TRUE;
        }
    }
  km_parse_error_set (error, KM_PARSE_ERROR_SYNTAX, lexer->path, _km_lexer_tok_pos (lexer),
                      _("expected a finite number"));
  return FALSE;
}

gboolean
_km_lexer_next_number (KmLexer  *lexer,
                       double   *out,
                       GError  **error)
{
  _km_lexer_next (lexer);
  return _km_lexer_number (lexer, out, error);
}

/* ---- shared helpers ----------------------------------------------------------------- */

static GPtrArray *
shapes_new (void)
{
  return g_ptr_array_new_with_free_func ((GDestroyNotify) km_shape_unref);
}

static GPtrArray *
single_mesh_shape (KmMesh *mesh)
{
  GPtrArray *shapes = shapes_new ();

  g_ptr_array_add (shapes, km_shape_new_mesh (mesh));
  km_mesh_unref (mesh);
  return shapes;
}

#define READ_CHUNK (64 * 1024)

/* A mesh or a material library is a regular file: anything else (/dev/zero, /dev/urandom,
 * a named pipe, a socket, a terminal) is refused at once without a byte read, where
 * reading it would take seconds and up to KM_MESH_MAX_FILE_SIZE of memory, or wait for a
 * pipe's writer for ever. stat(2) first, so that nothing but a regular file (or a folder,
 * said as before) is even opened (a device may act on open); then the file is opened
 * without blocking (swapped for a pipe meanwhile, its open does not wait for a writer)
 * and fstat(2) of what was opened decides, and that is what is read. */
static gboolean
read_file (const char  *path,
           char       **contents,
           gsize       *length,
           GError     **error)
{
  const KmSourcePos pos = { 0, 0 };
  GStatBuf st;
  struct stat fst;
  gsize size = 0, allocated;
  char *data;
  int fd;

  if (g_stat (path, &st) != 0)
    {
      int saved_errno = errno;

      km_parse_error_set (error, KM_PARSE_ERROR_IO, path, pos, _("cannot read the file: %s"),
                          g_strerror (saved_errno));
      return FALSE;
    }
  if (S_ISDIR (st.st_mode))
    {
      km_parse_error_set (error, KM_PARSE_ERROR_IO, path, pos, _("cannot read the file: %s"),
                          g_strerror (EISDIR));
      return FALSE;
    }
  if (!S_ISREG (st.st_mode))
    goto not_regular;
  fd = g_open (path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY, 0);
  if (fd < 0 || fstat (fd, &fst) != 0)
    {
      int saved_errno = errno;

      if (fd >= 0)
        close (fd);
      km_parse_error_set (error, KM_PARSE_ERROR_IO, path, pos, _("cannot read the file: %s"),
                          g_strerror (saved_errno));
      return FALSE;
    }
  if (!S_ISREG (fst.st_mode))
    {
      close (fd);
      goto not_regular;
    }
  /* Too large is refused before a byte is read; the loop still bounds a growing file. */
  if ((guint64) fst.st_size > (guint64) KM_MESH_MAX_FILE_SIZE)
    {
      close (fd);
      goto too_large;
    }
  allocated = (gsize) fst.st_size + 1;
  data = g_malloc (allocated);
  for (;;)
    {
      gssize n;

      /* Full (the size fstat said, read): more room only if the file grew, up to one
       * byte past the limit, which then refuses it. */
      if (size + 1 >= allocated)
        {
          allocated = MIN (MAX (allocated * 2, size + READ_CHUNK + 1),
                           KM_MESH_MAX_FILE_SIZE + 2);
          data = g_realloc (data, allocated);
        }
      n = read (fd, data + size, MIN ((gsize) READ_CHUNK, allocated - 1 - size));
      if (n < 0 && errno == EINTR)
        continue;
      if (n < 0)
        {
          int saved_errno = errno;

          close (fd);
          g_free (data);
          km_parse_error_set (error, KM_PARSE_ERROR_IO, path, pos,
                              _("cannot read the file: %s"), g_strerror (saved_errno));
          return FALSE;
        }
      if (n == 0)
        break;
      size += (gsize) n;
      if (size > KM_MESH_MAX_FILE_SIZE)
        {
          close (fd);
          g_free (data);
          goto too_large;
        }
    }
  close (fd);
  /* NUL-terminated for the text readers, as g_file_get_contents would. */
  data[size] = '\0';
  *contents = data;
  *length = size;
  return TRUE;

not_regular:
  km_parse_error_set (error, KM_PARSE_ERROR_IO, path, pos, "%s",
                      _("not a file Kinema can read: not a regular file (a device, a pipe "
                        "or a socket)"));
  return FALSE;

too_large:
  km_parse_error_set (error, KM_PARSE_ERROR_LIMIT, path, pos,
                      _("the file is larger than %u MiB"),
                      (guint) (KM_MESH_MAX_FILE_SIZE / (1024 * 1024)));
  return FALSE;
}

/* The line and column of byte @offset of UTF-8 @text, as the lexer counts them: lines end
 * at LF, CRLF or a lone CR (a CR just before @offset is lone: no LF is there); columns are
 * characters. */
static KmSourcePos
text_pos (const char *text,
          gsize       offset)
{
  KmSourcePos pos = { 1, 1 };

  for (gsize i = 0; i < offset; i++)
    if (is_line_end (text, offset, i))
      {
        pos.line++;
        pos.column = 1;
      }
    else if (((guchar) text[i] & 0xc0) != 0x80 && text[i] != '\r')
      pos.column++;
  return pos;
}

/* Where the @n bytes of UTF-16 at @d (after the mark) stop converting: the position, in
 * the characters before it, of the first code unit that is not part of a character, or
 * of the NUL at @nul (a byte offset into the converted text) when that comes first. */
static KmSourcePos
utf16_bad_pos (const char *d,
               gsize       n,
               const char *from,
               const char *converted,
               gsize       nul)
{
  g_autofree char *good = NULL;
  gsize read = 0, written = 0;

  if (converted != NULL)
    return text_pos (converted, nul);
  /* The converter stops at the first bad sequence, or a character cut off at the end. */
  g_free (g_convert (d, n, "UTF-8", from, &read, NULL, NULL));
  good = g_convert (d, MIN (read, n) & ~(gsize) 1, "UTF-8", from, NULL, &written, NULL);
  if (good == NULL)
    return (KmSourcePos) { 1, 1 };
  return text_pos (good, written);
}

gboolean
_km_mesh_text_unmark (const char   *path,
                      const char  **data,
                      gsize        *length,
                      char        **owned,
                      GError      **error)
{
  const char *d = *data;
  gsize n = *length;
  const char *from;
  g_autoptr(GError) local_error = NULL;
  gsize written = 0;
  char *text;
  const char *nul;

  *owned = NULL;
  if (n >= 3 && memcmp (d, "\xef\xbb\xbf", 3) == 0)
    {
      *data = d + 3;
      *length = n - 3;
      return TRUE;
    }
  if (n >= 2 && memcmp (d, "\xff\xfe", 2) == 0)
    from = "UTF-16LE";
  else if (n >= 2 && memcmp (d, "\xfe\xff", 2) == 0)
    from = "UTF-16BE";
  else
    return TRUE;
  text = g_convert (d + 2, n - 2, "UTF-8", from, NULL, &written, &local_error);
  nul = text != NULL ? memchr (text, '\0', written) : NULL;
  if (text == NULL || nul != NULL)
    {
      /* At the character where it goes wrong, as a reader's own errors are. */
      KmSourcePos pos = utf16_bad_pos (d + 2, n - 2, from, text,
                                       nul != NULL ? (gsize) (nul - text) : 0);

      /* Translators: %s is an encoding name (UTF-16LE), the last %s the reason. */
      km_parse_error_set (error, KM_PARSE_ERROR_SYNTAX, path, pos,
                          _("expected %s text after the byte order mark: %s"), from,
                          local_error != NULL ? local_error->message : _("it contains a NUL"));
      g_free (text);
      return FALSE;
    }
  *owned = text;
  *data = text;
  *length = written;
  return TRUE;
}

const char *
_km_mesh_text_sniff (const char  *data,
                     gsize        length,
                     gsize        limit,
                     char       **owned,
                     gsize       *sniff_length)
{
  gboolean le;
  char *text;
  gsize n = 0;

  *owned = NULL;
  if (length >= 3 && memcmp (data, "\xef\xbb\xbf", 3) == 0)
    {
      *sniff_length = MIN (length - 3, limit);
      return data + 3;
    }
  if (length < 2 || (memcmp (data, "\xff\xfe", 2) != 0 && memcmp (data, "\xfe\xff", 2) != 0))
    {
      *sniff_length = MIN (length, limit);
      return data;
    }
  /* Narrowed rather than converted: the sniffers look for ASCII words, and the text may
   * be cut anywhere (within a character too) at the limit. */
  le = (guchar) data[0] == 0xff;
  length = MIN (length, limit);
  text = g_malloc (length / 2 + 1);
  for (gsize i = 2; i + 1 < length; i += 2)
    {
      guint unit = le ? (guchar) data[i] | (guint) (guchar) data[i + 1] << 8
                      : (guint) (guchar) data[i] << 8 | (guchar) data[i + 1];

      text[n++] = unit != 0 && unit < 0x80 ? (char) unit : '?';
    }
  text[n] = '\0';
  *owned = text;
  *sniff_length = n;
  return text;
}

/* ---- STL ---------------------------------------------------------------------------- */

static gboolean
stl_is_binary (const char *data,
               gsize       length)
{
  guint32 n;

  if (length < 84)
    return FALSE;
  memcpy (&n, data + 80, 4);
  n = GUINT32_FROM_LE (n);
  return (guint64) length == 84 + 50 * (guint64) n;
}

static GPtrArray *
stl_binary (const char  *path,
            const char  *data,
            gsize        length,
            GError     **error)
{
  guint32 n;
  g_autofree float *vertices = NULL;
  g_autofree guint32 *indices = NULL;
  KmMesh *mesh;

  memcpy (&n, data + 80, 4);
  n = GUINT32_FROM_LE (n);
  if (n > KM_MESH_MAX_TRIANGLES || (guint64) n * 3 > KM_MESH_MAX_VERTICES)
    {
      km_parse_error_set (error, KM_PARSE_ERROR_LIMIT, path, (KmSourcePos) { 0, 0 },
                          _("the STL file has %u triangles, more than the %u allowed"), n,
                          KM_MESH_MAX_VERTICES / 3);
      return NULL;
    }
  vertices = g_new (float, (gsize) n * 9);
  indices = g_new (guint32, (gsize) n * 3);
  for (guint32 t = 0; t < n; t++)
    {
      const char *rec = data + 84 + (gsize) t * 50 + 12;   /* skip the facet normal */

      for (int k = 0; k < 9; k++)
        {
          guint32 bits;
          float f;

          memcpy (&bits, rec + 4 * k, 4);
          bits = GUINT32_FROM_LE (bits);
          memcpy (&f, &bits, 4);
          vertices[(gsize) t * 9 + k] = f;
        }
      for (int k = 0; k < 3; k++)
        indices[(gsize) t * 3 + k] = t * 3 + k;
    }
  mesh = km_mesh_new_take (g_steal_pointer (&vertices), n * 3, NULL,
                           g_steal_pointer (&indices), n, error);
  if (mesh == NULL)
    {
      km_parse_error_prefix (error, path, (KmSourcePos) { 0, 0 });
      return NULL;
    }
  return single_mesh_shape (mesh);
}

static GPtrArray *
stl_ascii (const char  *path,
           const char  *data,
           gsize        length,
           GError     **error)
{
  g_autoptr(GArray) vertices = g_array_new (FALSE, FALSE, sizeof (float));
  g_autoptr(GArray) indices = g_array_new (FALSE, FALSE, sizeof (guint32));
  KmLexer lx;
  KmMesh *mesh;

  _km_lexer_init (&lx, path, data, length);
  lx.comment = 0;
  _km_lexer_next (&lx);
  if (!_km_lexer_is (&lx, "solid"))
    {
      km_parse_error_set (error, KM_PARSE_ERROR_SYNTAX, path, _km_lexer_tok_pos (&lx),
                          _("expected “solid” at the start of an ASCII STL file (a binary STL "
                            "file must be 84 + 50 × triangles bytes long)"));
      return NULL;
    }
  /* The solid's name runs to the end of the line. */
  _km_lexer_next_line (&lx);

  for (;;)
    {
      guint first, count = 0;

      if (!_km_lexer_next (&lx))
        break;
      if (_km_lexer_is (&lx, "endsolid"))
        {
          _km_lexer_next_line (&lx);
          /* Several solids may follow one another. */
          if (!_km_lexer_next (&lx))
            break;
          if (!_km_lexer_is (&lx, "solid"))
            goto expected_facet;
          _km_lexer_next_line (&lx);
          continue;
        }
      if (!_km_lexer_is (&lx, "facet"))
        goto expected_facet;
      /* "normal nx ny nz": not used, normals are computed from the vertices. */
      _km_lexer_next (&lx);
      if (!_km_lexer_is (&lx, "normal"))
        {
          km_parse_error_set (error, KM_PARSE_ERROR_SYNTAX, path, _km_lexer_tok_pos (&lx),
                              _("expected “normal”"));
          return NULL;
        }
      for (int k = 0; k < 3; k++)
        {
          double v;

          if (!_km_lexer_next_number (&lx, &v, error))
            return NULL;
        }
      _km_lexer_next (&lx);
      if (!_km_lexer_is (&lx, "outer"))
        {
          km_parse_error_set (error, KM_PARSE_ERROR_SYNTAX, path, _km_lexer_tok_pos (&lx),
                              _("expected “outer loop”"));
          return NULL;
        }
      _km_lexer_next (&lx);
      if (!_km_lexer_is (&lx, "loop"))
        {
          km_parse_error_set (error, KM_PARSE_ERROR_SYNTAX, path, _km_lexer_tok_pos (&lx),
                              _("expected “loop”"));
          return NULL;
        }
      first = vertices->len / 3;
      for (;;)
        {
          _km_lexer_next (&lx);
          if (_km_lexer_is (&lx, "endloop"))
            break;
          if (!_km_lexer_is (&lx, "vertex"))
            {
              km_parse_error_set (error, KM_PARSE_ERROR_SYNTAX, path, _km_lexer_tok_pos (&lx),
                                  _("expected “vertex” or “endloop”"));
              return NULL;
            }
          if (vertices->len / 3 >= KM_MESH_MAX_VERTICES)
            {
              km_parse_error_set (error, KM_PARSE_ERROR_LIMIT, path, _km_lexer_tok_pos (&lx),
                                  _("too many vertices (at most %u)"), KM_MESH_MAX_VERTICES);
              return NULL;
            }
          for (int k = 0; k < 3; k++)
            {
              double v;
              float f;

              if (!_km_lexer_next_number (&lx, &v, error))
                return NULL;
              f = (float) v;
              g_array_append_val (vertices, f);
            }
          count++;
        }
      if (count < 3)
        {
          km_parse_error_set (error, KM_PARSE_ERROR_SYNTAX, path, _km_lexer_tok_pos (&lx),
                              _("expected at least three vertices in a facet"));
          return NULL;
        }
      /* A fan for the (non-standard) facets with more than three vertices. */
      for (guint k = 1; k + 1 < count; k++)
        {
          guint32 tri[3] = { first, first + k, first + k + 1 };

          g_array_append_vals (indices, tri, 3);
        }
      _km_lexer_next (&lx);
      if (!_km_lexer_is (&lx, "endfacet"))
        {
          km_parse_error_set (error, KM_PARSE_ERROR_SYNTAX, path, _km_lexer_tok_pos (&lx),
                              _("expected “endfacet”"));
          return NULL;
        }
    }

  {
    guint nv = vertices->len / 3, nt = indices->len / 3;

    mesh = km_mesh_new_take ((float *) g_array_free (g_steal_pointer (&vertices), FALSE), nv,
                             NULL, (guint32 *) g_array_free (g_steal_pointer (&indices), FALSE),
                             nt, error);
  }
  if (mesh == NULL)
    {
      km_parse_error_prefix (error, path, (KmSourcePos) { 0, 0 });
      return NULL;
    }
  return single_mesh_shape (mesh);

expected_facet:
  km_parse_error_set (error, KM_PARSE_ERROR_SYNTAX, path, _km_lexer_tok_pos (&lx),
                      _("expected “facet” or “endsolid”"));
  return NULL;
}

void
_km_affine_identity (KmAffine *a)
{
  km_mat3_identity (&a->lin);
  a->t = KM_VEC3_ZERO;
}

gboolean
_km_shape_place (KmShape        *shape,
                 const KmAffine *m,
                 gsize          *n_baked,
                 const char     *path,
                 KmSourcePos     pos,
                 GError        **error)
{
  const KmMesh *src = shape->mesh;
  g_autoptr(GError) local_error = NULL;
  guint nv, nt;
  float *verts;
  KmMesh *baked;

  if (km_shape_set_affine (shape, &m->lin, m->t) || src == NULL)
    return TRUE;

  /* Instances share their mesh; only sheared ones are copied. */
  nv = km_mesh_get_n_vertices (src);
  nt = km_mesh_get_n_triangles (src);
  if (n_baked != NULL)
    {
      *n_baked += nv;
      if (*n_baked > KM_MESH_MAX_VERTICES)
        {
          km_parse_error_set (error, KM_PARSE_ERROR_LIMIT, path, pos,
                              _("too many vertices in sheared instances (at most %u)"),
                              KM_MESH_MAX_VERTICES);
          return FALSE;
        }
    }
  verts = g_memdup2 (km_mesh_get_vertices (src), sizeof (float) * 3 * nv);
  for (guint i = 0; i < nv; i++)
    {
      KmVec3 q = km_vec3 (verts[i * 3], verts[i * 3 + 1], verts[i * 3 + 2]);

      q = km_vec3_add (km_mat3_mul_vec3 (&m->lin, q), m->t);
      verts[i * 3] = (float) q.x;
      verts[i * 3 + 1] = (float) q.y;
      verts[i * 3 + 2] = (float) q.z;
    }
  baked = km_mesh_new_take (verts, nv, NULL,
                            g_memdup2 (km_mesh_get_indices (src), sizeof (guint32) * 3 * nt),
                            nt, &local_error);
  if (baked == NULL)
    {
      km_parse_error_set (error, KM_PARSE_ERROR_LIMIT, path, pos, "%s", local_error->message);
      return FALSE;
    }
  km_mesh_unref (shape->mesh);
  shape->mesh = baked;
  km_transform_identity (&shape->transform);
  shape->scale = km_vec3 (1, 1, 1);
  return TRUE;
}

void
_km_affine_mul (const KmAffine *a,
                const KmAffine *b,
                KmAffine       *out)
{
  KmAffine r;

  km_mat3_mul (&a->lin, &b->lin, &r.lin);
  r.t = km_vec3_add (km_mat3_mul_vec3 (&a->lin, b->t), a->t);
  *out = r;
}

/**
 * km_mesh_load_stl:
 *
 * Binary when the size is 84 + 50·n for the triangle count n in the header (whatever the
 * first word), or larger and not text (padded: a warning says what is ignored), ASCII
 * otherwise. Vertices are not shared between triangles, so normals
 * are flat.
 *
 * Returns: (transfer full) (nullable): one mesh shape, or %NULL with @error set
 */
GPtrArray *
km_mesh_load_stl (const char  *path,
                  const char  *data,
                  gsize        length,
                  GError     **error)
{
  g_return_val_if_fail (path != NULL, NULL);
  g_return_val_if_fail (data != NULL || length == 0, NULL);

  if (stl_is_binary (data, length))
    return stl_binary (path, data, length, error);
  if (length > 0 && memchr (data, '\0', length) != NULL)
    {
      guint32 n = 0;

      if (length >= 84)
        memcpy (&n, data + 80, 4);
      n = GUINT32_FROM_LE (n);
      if (n > 0 && (guint64) length > 84 + 50 * (guint64) n)
        {
          /* Binary with bytes after its last triangle, as some exporters pad the file:
           * the triangles the header counts are all there. */
          km_parse_warning (path, (KmSourcePos) { 0, 0 },
                            _("%lu bytes after the last of the %u triangles of this binary "
                              "STL file are ignored"),
                            (unsigned long) (length - 84 - 50 * (guint64) n), n);
          return stl_binary (path, data, 84 + 50 * (gsize) n, error);
        }
      /* Translators: %lu and %u are byte counts, the last %u a triangle count. */
      km_parse_error_set (error, KM_PARSE_ERROR_SYNTAX, path, (KmSourcePos) { 0, 0 },
                          _("expected an ASCII STL file, or a binary one of 84 + 50 × triangles "
                            "bytes: this one has %lu bytes and claims %u triangles"),
                          (unsigned long) length, n);
      return NULL;
    }
  return stl_ascii (path, data, length, error);
}

/* ---- OBJ + MTL ---------------------------------------------------------------------- */

typedef struct
{
  KmColor  color;
} ObjMaterial;

typedef struct
{
  char       *material;
  GArray     *vertices;     /* float ×3 */
  GArray     *normals;      /* float ×3 */
  GArray     *indices;      /* guint32 ×3 */
  GHashTable *corners;      /* (v << 32 | vn) + 1 → output index + 1 */
  gboolean    all_normals;
} ObjGroup;

static void
obj_group_free (gpointer data)
{
  ObjGroup *g = data;

  g_free (g->material);
  g_array_unref (g->vertices);
  g_array_unref (g->normals);
  g_array_unref (g->indices);
  g_hash_table_unref (g->corners);
  g_free (g);
}

static guint64 *
corner_key_new (guint64 value)
{
  return g_memdup2 (&value, sizeof value);
}

static void
mtl_load (const char  *obj_path,
          KmLexer     *at,
          const char  *name,
          GHashTable  *materials)
{
  /* Named as the user would (no "./"): messages about the library name this path. */
  g_autofree char *path = km_parse_included_path (obj_path, name);
  g_autofree char *data = NULL;
  g_autoptr(GError) error = NULL;
  ObjMaterial *current = NULL;
  gsize length;
  KmLexer lx;

  if (!read_file (path, &data, &length, &error))
    {
      km_parse_warning (at->path, _km_lexer_tok_pos (at),
                        _("material library “%s” is not read: %s"), name, error->message);
      return;
    }
  _km_lexer_init (&lx, path, data, length);
  lx.line_mode = TRUE;
  do
    {
      if (!_km_lexer_next (&lx))
        continue;
      if (_km_lexer_is (&lx, "newmtl"))
        {
          g_autofree char *mname = NULL;

          /* Blender writes "newmtl " for a material without a name, and "usemtl " to
           * use it: the empty name is a name. */
          _km_lexer_next (&lx);
          mname = g_strndup (lx.tok, lx.tok_len);
          current = g_new0 (ObjMaterial, 1);
          current->color = KM_COLOR_DEFAULT;
          g_hash_table_replace (materials, g_steal_pointer (&mname), current);
        }
      else if (current && _km_lexer_is (&lx, "Kd"))
        {
          double rgb[3];

          for (int k = 0; k < 3; k++)
            if (!_km_lexer_next_number (&lx, &rgb[k], &error))
              {
                km_parse_warning (path, _km_lexer_tok_pos (&lx), "%s", error->message);
                return;
              }
          current->color.r = (float) CLAMP (rgb[0], 0, 1);
          current->color.g = (float) CLAMP (rgb[1], 0, 1);
          current->color.b = (float) CLAMP (rgb[2], 0, 1);
        }
      else if (current && (_km_lexer_is (&lx, "d") || _km_lexer_is (&lx, "Tr")))
        {
          gboolean is_tr = _km_lexer_is (&lx, "Tr");
          double v;

          if (!_km_lexer_next_number (&lx, &v, &error))
            {
              km_parse_warning (path, _km_lexer_tok_pos (&lx), "%s", error->message);
              return;
            }
          v = CLAMP (v, 0, 1);
          current->color.a = (float) (is_tr ? 1 - v : v);
        }
    }
  while (_km_lexer_next_line (&lx));
}

/* A face corner "v", "v/vt", "v//vn" or "v/vt/vn", with negative indices counting back
 * from the last vertex read. */
static gboolean
obj_corner (KmLexer  *lx,
            guint     n_v,
            guint     n_vn,
            guint    *v,
            int      *vn,
            GError  **error)
{
  g_autofree char *text = g_strndup (lx->tok, lx->tok_len);
  char **parts = g_strsplit (text, "/", 4);
  guint n_parts = g_strv_length (parts);
  gboolean ok = FALSE;
  gint64 value;
  char *end;

  *vn = -1;
  if (n_parts < 1 || n_parts > 3)
    goto out;
  value = g_ascii_strtoll (parts[0], &end, 10);
  if (end == parts[0] || *end != '\0' || value == 0)
    goto out;
  if (value < 0)
    value += (gint64) n_v + 1;
  if (value < 1 || value > (gint64) n_v)
    {
      km_parse_error_set (error, KM_PARSE_ERROR_INVALID, lx->path, _km_lexer_tok_pos (lx),
                          _("expected a vertex index between 1 and %u"), n_v);
      g_strfreev (parts);
      return FALSE;
    }
  *v = (guint) value - 1;
  if (n_parts == 3 && parts[2][0] != '\0')
    {
      value = g_ascii_strtoll (parts[2], &end, 10);
      if (end == parts[2] || *end != '\0' || value == 0)
        goto out;
      if (value < 0)
        value += (gint64) n_vn + 1;
      if (value < 1 || value > (gint64) n_vn)
        {
          km_parse_error_set (error, KM_PARSE_ERROR_INVALID, lx->path, _km_lexer_tok_pos (lx),
                              _("expected a normal index between 1 and %u"), n_vn);
          g_strfreev (parts);
          return FALSE;
        }
      *vn = (int) value - 1;
    }
  ok = TRUE;

out:
  g_strfreev (parts);
  if (!ok)
    km_parse_error_set (error, KM_PARSE_ERROR_SYNTAX, lx->path, _km_lexer_tok_pos (lx),
                        _("expected a face corner such as 3, 3/1, 3//2 or 3/1/2"));
  return ok;
}

/**
 * km_mesh_load_obj:
 *
 * Reads v, vn, f, usemtl and mtllib (MTL: newmtl, Kd, d, Tr); texture coordinates,
 * groups, smoothing groups and free-form geometry are not read. Polygons are split into
 * fans. One shape per material, in the order the materials are first used. The text may
 * start with a UTF-8 or UTF-16 (LE or BE) byte order mark.
 *
 * Returns: (transfer full) (nullable): the shapes, or %NULL with @error set
 */
GPtrArray *
km_mesh_load_obj (const char  *path,
                  const char  *data,
                  gsize        length,
                  GError     **error)
{
  g_autoptr(GArray) positions = g_array_new (FALSE, FALSE, sizeof (float));
  g_autoptr(GArray) normals = g_array_new (FALSE, FALSE, sizeof (float));
  g_autoptr(GHashTable) materials = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                                           g_free);
  g_autoptr(GPtrArray) groups = g_ptr_array_new_with_free_func (obj_group_free);
  g_autoptr(GPtrArray) shapes = shapes_new ();
  g_autofree char *converted = NULL;
  ObjGroup *group = NULL;
  gsize total_triangles = 0;
  KmLexer lx;

  g_return_val_if_fail (path != NULL, NULL);
  g_return_val_if_fail (data != NULL || length == 0, NULL);

  /* Exporters on Windows write a byte order mark, some UTF-16 text (read as nothing at
   * all before: no line started with "v" or "f"). */
  if (!_km_mesh_text_unmark (path, &data, &length, &converted, error))
    return NULL;
  _km_lexer_init (&lx, path, data, length);
  lx.line_mode = TRUE;
  do
    {
      if (!_km_lexer_next (&lx))
        continue;
      if (_km_lexer_is (&lx, "v") || _km_lexer_is (&lx, "vn"))
        {
          GArray *target = lx.tok_len == 1 ? positions : normals;

          if (target->len / 3 >= KM_MESH_MAX_VERTICES)
            {
              km_parse_error_set (error, KM_PARSE_ERROR_LIMIT, path, _km_lexer_tok_pos (&lx),
                                  _("too many vertices (at most %u)"), KM_MESH_MAX_VERTICES);
              return NULL;
            }
          for (int k = 0; k < 3; k++)
            {
              double v;
              float f;

              if (!_km_lexer_next_number (&lx, &v, error))
                return NULL;
              f = (float) v;
              g_array_append_val (target, f);
            }
        }
      else if (_km_lexer_is (&lx, "f"))
        {
          guint32 first = 0, prev = 0;
          guint count = 0;

          if (group == NULL)
            {
              group = g_new0 (ObjGroup, 1);
              group->vertices = g_array_new (FALSE, FALSE, sizeof (float));
              group->normals = g_array_new (FALSE, FALSE, sizeof (float));
              group->indices = g_array_new (FALSE, FALSE, sizeof (guint32));
              group->corners = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, NULL);
              group->all_normals = TRUE;
              g_ptr_array_add (groups, group);
            }
          while (_km_lexer_next (&lx))
            {
              guint v;
              int vn;
              guint64 key;
              gpointer found;
              guint32 index;

              if (!obj_corner (&lx, positions->len / 3, normals->len / 3, &v, &vn, error))
                return NULL;
              key = ((guint64) v << 32) | (guint32) (vn + 1);
              found = g_hash_table_lookup (group->corners, &key);
              if (found != NULL)
                index = GPOINTER_TO_UINT (found) - 1;
              else
                {
                  if (group->vertices->len / 3 >= KM_MESH_MAX_VERTICES)
                    {
                      km_parse_error_set (error, KM_PARSE_ERROR_LIMIT, path,
                                          _km_lexer_tok_pos (&lx),
                                          _("too many vertices (at most %u)"),
                                          KM_MESH_MAX_VERTICES);
                      return NULL;
                    }
                  index = group->vertices->len / 3;
                  g_array_append_vals (group->vertices,
                                       &g_array_index (positions, float, v * 3), 3);
                  if (vn >= 0)
                    g_array_append_vals (group->normals,
                                         &g_array_index (normals, float, (guint) vn * 3), 3);
                  else
                    {
                      static const float zero[3] = { 0, 0, 0 };

                      g_array_append_vals (group->normals, zero, 3);
                      group->all_normals = FALSE;
                    }
                  g_hash_table_insert (group->corners, corner_key_new (key),
                                       GUINT_TO_POINTER (index + 1));
                }
              if (count == 0)
                first = index;
              else if (count >= 2)
                {
                  guint32 tri[3] = { first, prev, index };

                  if (++total_triangles > KM_MESH_MAX_TRIANGLES)
                    {
                      km_parse_error_set (error, KM_PARSE_ERROR_LIMIT, path,
                                          _km_lexer_tok_pos (&lx),
                                          _("too many triangles (at most %u)"),
                                          KM_MESH_MAX_TRIANGLES);
                      return NULL;
                    }
                  g_array_append_vals (group->indices, tri, 3);
                }
              prev = index;
              count++;
            }
          if (count < 3)
            {
              km_parse_error_set (error, KM_PARSE_ERROR_SYNTAX, path, _km_lexer_tok_pos (&lx),
                                  _("expected at least three corners in a face"));
              return NULL;
            }
        }
      else if (_km_lexer_is (&lx, "usemtl"))
        {
          g_autofree char *name = NULL;

          _km_lexer_next (&lx);
          name = g_strndup (lx.tok, lx.tok_len);
          group = NULL;
          for (guint i = 0; i < groups->len; i++)
            {
              ObjGroup *g = g_ptr_array_index (groups, i);

              if (g_strcmp0 (g->material, name) == 0)
                group = g;
            }
          if (group == NULL)
            {
              group = g_new0 (ObjGroup, 1);
              group->material = g_steal_pointer (&name);
              group->vertices = g_array_new (FALSE, FALSE, sizeof (float));
              group->normals = g_array_new (FALSE, FALSE, sizeof (float));
              group->indices = g_array_new (FALSE, FALSE, sizeof (guint32));
              group->corners = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, NULL);
              group->all_normals = TRUE;
              g_ptr_array_add (groups, group);
            }
        }
      else if (_km_lexer_is (&lx, "mtllib"))
        {
          /* One or more file names (names with spaces are not supported). */
          while (_km_lexer_next (&lx))
            {
              g_autofree char *name = g_strndup (lx.tok, lx.tok_len);

              mtl_load (path, &lx, name, materials);
            }
        }
      /* vt, o, g, s, l, p and the rest: not needed for display */
    }
  while (_km_lexer_next_line (&lx));

  for (guint i = 0; i < groups->len; i++)
    {
      ObjGroup *g = g_ptr_array_index (groups, i);
      guint nv = g->vertices->len / 3, nt = g->indices->len / 3;
      ObjMaterial *m = g->material ? g_hash_table_lookup (materials, g->material) : NULL;
      KmMesh *mesh;

      if (nt == 0)
        continue;
      mesh = km_mesh_new_take ((float *) g_array_free (g_steal_pointer (&g->vertices), FALSE),
                               nv,
                               g->all_normals ?
                               (float *) g_array_free (g_steal_pointer (&g->normals), FALSE) :
                               NULL,
                               (guint32 *) g_array_free (g_steal_pointer (&g->indices), FALSE),
                               nt, error);
      g->vertices = g_array_new (FALSE, FALSE, sizeof (float));
      g->indices = g_array_new (FALSE, FALSE, sizeof (guint32));
      if (g->normals == NULL)
        g->normals = g_array_new (FALSE, FALSE, sizeof (float));
      if (mesh == NULL)
        {
          km_parse_error_prefix (error, path, (KmSourcePos) { 0, 0 });
          return NULL;
        }
      if (m != NULL)
        km_mesh_set_color (mesh, m->color);
      else if (g->material != NULL)
        km_parse_warning (path, (KmSourcePos) { 0, 0 },
                          _("material “%s” is not defined; the default colour is used"),
                          g->material);
      g_ptr_array_add (shapes, km_shape_new_mesh (mesh));
      km_mesh_unref (mesh);
    }
  return g_steal_pointer (&shapes);
}

/* ---- dispatch and cache ------------------------------------------------------------- */

static gboolean
has_suffix (const char *path,
            const char *suffix)
{
  gsize lp = strlen (path), ls = strlen (suffix);

  return lp >= ls && g_ascii_strcasecmp (path + lp - ls, suffix) == 0;
}

static gboolean
looks_like_ascii_stl (const char *data,
                      gsize       length)
{
  gsize i = 0;

  while (i < length && g_ascii_isspace (data[i]))
    i++;
  return length - i >= 5 && memcmp (data + i, "solid", 5) == 0 &&
         g_strstr_len (data, MIN (length, 4096), "facet") != NULL;
}

/* "#VRML" at the start, after a byte order mark if any (UTF-8, or UTF-16 as Windows
 * exporters write): reached through an Inline url or a mesh uri, the file's name may say
 * nothing. */
static gboolean
looks_like_vrml (const char *data,
                 gsize       length)
{
  g_autofree char *owned = NULL;
  gsize n = 0;
  const char *text = _km_mesh_text_sniff (data, length, 16, &owned, &n);

  return n >= 5 && memcmp (text, "#VRML", 5) == 0;
}

/* "<COLLADA" after an optional BOM, XML declaration, comments and white space. */
static gboolean
looks_like_collada (const char *data,
                    gsize       length)
{
  gsize i = 0;

  if (length >= 3 && memcmp (data, "\xef\xbb\xbf", 3) == 0)
    i = 3;
  for (;;)
    {
      const char *close = NULL, *end;

      while (i < length && g_ascii_isspace (data[i]))
        i++;
      if (length - i >= 5 && memcmp (data + i, "<?xml", 5) == 0)
        close = "?>";
      else if (length - i >= 4 && memcmp (data + i, "<!--", 4) == 0)
        close = "-->";
      else
        break;
      end = g_strstr_len (data + i + 4, length - i - 4, close);
      if (end == NULL)
        return FALSE;
      i = (gsize) (end - data) + strlen (close);
    }
  return length - i >= 8 && memcmp (data + i, "<COLLADA", 8) == 0;
}

/**
 * km_mesh_load_file:
 *
 * Returns: (transfer full) (nullable): the file's shapes, or %NULL with @error set
 */
GPtrArray *
km_mesh_load_file (const char  *path,
                   const char  *node,
                   GError     **error)
{
  g_autofree char *data = NULL;
  gsize length;

  g_return_val_if_fail (path != NULL, NULL);

  if (!read_file (path, &data, &length, error))
    return NULL;
  if (stl_is_binary (data, length) || looks_like_ascii_stl (data, length))
    return km_mesh_load_stl (path, data, length, error);
  if (looks_like_vrml (data, length))
    return km_mesh_load_vrml (path, data, length, node, error);
  if (looks_like_collada (data, length))
    return km_mesh_load_collada (path, data, length, error);
  if (has_suffix (path, ".stl"))
    return km_mesh_load_stl (path, data, length, error);
  if (has_suffix (path, ".obj"))
    return km_mesh_load_obj (path, data, length, error);
  if (has_suffix (path, ".wrl") || has_suffix (path, ".vrml"))
    return km_mesh_load_vrml (path, data, length, node, error);
  if (has_suffix (path, ".dae"))
    return km_mesh_load_collada (path, data, length, error);
  if (has_suffix (path, ".zae") || (length >= 4 && memcmp (data, "PK\x03\x04", 4) == 0))
    {
      km_parse_error_set (error, KM_PARSE_ERROR_UNKNOWN, path, (KmSourcePos) { 0, 0 },
                          _("zipped files (such as COLLADA .zae) are not read: unpack the "
                            "archive and use the .dae file in it"));
      return NULL;
    }
  km_parse_error_set (error, KM_PARSE_ERROR_UNKNOWN, path, (KmSourcePos) { 0, 0 },
                      _("expected a mesh file in STL, OBJ, VRML97 or COLLADA format"));
  return NULL;
}

typedef struct
{
  GPtrArray *shapes;
  GError    *error;
} CacheEntry;

struct _KmMeshCache
{
  GHashTable *entries;   /* "path\nnode" → CacheEntry */
};

static void
cache_entry_free (gpointer data)
{
  CacheEntry *e = data;

  g_clear_pointer (&e->shapes, g_ptr_array_unref);
  g_clear_error (&e->error);
  g_free (e);
}

KmMeshCache *
km_mesh_cache_new (void)
{
  KmMeshCache *self = g_new0 (KmMeshCache, 1);

  self->entries = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, cache_entry_free);
  return self;
}

void
km_mesh_cache_free (KmMeshCache *self)
{
  if (self == NULL)
    return;
  g_hash_table_unref (self->entries);
  g_free (self);
}

/**
 * km_mesh_cache_load:
 * @cache: (nullable): a cache, or %NULL to read the file every time
 *
 * Returns: (transfer container) (nullable): the file's shapes (shared: copy before
 *   changing), or %NULL with @error set (a cached failure is reported again)
 */
GPtrArray *
km_mesh_cache_load (KmMeshCache  *cache,
                    const char   *path,
                    const char   *node,
                    GError      **error)
{
  g_autofree char *canonical = NULL;
  g_autofree char *key = NULL;
  CacheEntry *entry;

  g_return_val_if_fail (path != NULL, NULL);

  if (cache == NULL)
    return km_mesh_load_file (path, node, error);

  canonical = g_canonicalize_filename (path, NULL);
  key = g_strconcat (canonical, "\n", node ? node : "", NULL);
  entry = g_hash_table_lookup (cache->entries, key);
  if (entry == NULL)
    {
      entry = g_new0 (CacheEntry, 1);
      entry->shapes = km_mesh_load_file (path, node, &entry->error);
      g_hash_table_insert (cache->entries, g_steal_pointer (&key), entry);
    }
  if (entry->shapes == NULL)
    {
      if (error)
        *error = g_error_copy (entry->error);
      return NULL;
    }
  return g_ptr_array_ref (entry->shapes);
}
