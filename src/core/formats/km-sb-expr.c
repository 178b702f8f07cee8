/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 */

#define G_LOG_DOMAIN "km-sb-expr"

#include "config.h"

#include <math.h>
#include <string.h>
#include <glib/gi18n-lib.h>

#include "km-sb-expr.h"

#define STANDARD_GRAVITY 9.80665

typedef enum
{
  ITEM_NUMBER,
  ITEM_UNIT,
  ITEM_FUNCTION,
  ITEM_OPERATOR,
} ItemKind;

typedef struct
{
  ItemKind kind;
  double   value;     /* number value or unit factor */
  int      code;      /* operator character or function index */
  gsize    offset;    /* in the whole text */
} Item;

typedef struct
{
  const char *text;
  gsize       length;
  gsize       pos;
  gsize       error_offset;
  char       *error_message;
  gboolean    paren_unit;   /* a unit stood inside parentheses */
} Scanner;

static const struct
{
  const char *name;
  double      factor;
} unit_table[] = {
  { "km", 1000.0 }, { "m", 1.0 }, { "cm", 0.01 }, { "mm", 0.001 },
  { "kg", 1.0 }, { "g", 0.001 }, { "G", STANDARD_GRAVITY },
  { "hour", 3600.0 }, { "h", 3600.0 }, { "min", 60.0 }, { "second", 1.0 }, { "s", 1.0 },
  { "rad", 1.0 }, { "deg", G_PI / 180.0 },
  { "N", 1.0 }, { "mN", 0.001 }, { "kgf", STANDARD_GRAVITY }, { "Nm", 1.0 },
  { "mNm", 0.001 }, { "kgfcm", 0.01 * STANDARD_GRAVITY }, { "%", 0.01 },
};

static const char * const function_names[] = { "sin", "cos", "tan", "exp", "log", "sqrt" };

G_GNUC_PRINTF (3, 4)
static gboolean
scan_fail (Scanner    *s,
           gsize       offset,
           const char *format,
           ...)
{
  va_list args;

  if (s->error_message == NULL)
    {
      va_start (args, format);
      s->error_message = g_strdup_vprintf (format, args);
      va_end (args);
      s->error_offset = offset;
    }
  return FALSE;
}

/**
 * km_sb_units_scale:
 *
 * Returns: the SI value of a bare number of dimension @dim under the default @units
 */
double
km_sb_units_scale (const KmSbUnits *units,
                   KmSbDim          dim)
{
  double L, R, M, T;

  g_return_val_if_fail (units != NULL, 1.0);

  L = units->length;
  R = units->rotation;
  M = units->mass;
  T = units->time;
  switch (dim)
    {
    case KM_SB_DIM_L: return L;
    case KM_SB_DIM_R: return R;
    case KM_SB_DIM_M: return M;
    case KM_SB_DIM_L_T: return L / T;
    case KM_SB_DIM_L_T2: return L / (T * T);
    case KM_SB_DIM_R_T: return R / T;
    case KM_SB_DIM_R_T2: return R / (T * T);
    case KM_SB_DIM_ML_T2: return M * L / (T * T);
    case KM_SB_DIM_ML2_T2: return M * L * L / (T * T);
    case KM_SB_DIM_ML2: return M * L * L;
    case KM_SB_DIM_M_T: return M / T;
    case KM_SB_DIM_M_T2: return M / (T * T);
    case KM_SB_DIM_ML2_RT: return M * L * L / (R * T);
    case KM_SB_DIM_ML2_RT2: return M * L * L / (R * T * T);
    case KM_SB_DIM_M_L3: return M / (L * L * L);
    case KM_SB_DIM_NONE:
    default:
      return 1.0;
    }
}

/* Looks up one plain unit name (case-sensitive): the table of specs/scenebuilder.md 2.4. */
gboolean
km_sb_unit_lookup (const char *name,
                   gsize       length,
                   double     *factor)
{
  g_return_val_if_fail (name != NULL, FALSE);

  for (guint i = 0; i < G_N_ELEMENTS (unit_table); i++)
    if (strlen (unit_table[i].name) == length && memcmp (unit_table[i].name, name, length) == 0)
      {
        if (factor)
          *factor = unit_table[i].factor;
        return TRUE;
      }
  return FALSE;
}

static gboolean
is_ident_char (char c)
{
  return g_ascii_isalpha (c) || c == '%';
}

/* NAME ('^' INT)? inside brackets. */
static gboolean
scan_unit_factor (Scanner *s,
                  gsize    start,
                  gsize    end,
                  double  *factor)
{
  gsize p = start, name_end;
  double f;

  while (p < end && is_ident_char (s->text[p]))
    p++;
  name_end = p;
  if (name_end == start || !km_sb_unit_lookup (s->text + start, name_end - start, &f))
    return scan_fail (s, start, _("expected a unit name such as m, mm, kg, s or deg"));
  if (p < end && s->text[p] == '^')
    {
      gboolean negative = FALSE;
      gint64 power = 0;

      p++;
      if (p < end && s->text[p] == '-')
        {
          negative = TRUE;
          p++;
        }
      if (p >= end || !g_ascii_isdigit (s->text[p]))
        return scan_fail (s, p, _("expected an integer power after ^"));
      while (p < end && g_ascii_isdigit (s->text[p]))
        {
          power = power * 10 + (s->text[p] - '0');
          if (power > 64)
            return scan_fail (s, p, _("the power of a unit must be at most 64"));
          p++;
        }
      f = pow (f, negative ? -(double) power : (double) power);
    }
  if (p != end)
    return scan_fail (s, p, _("only unit names, one ^ power and one / may stand in brackets"));
  *factor = f;
  return TRUE;
}

/* '[' factor ('/' factor)? ']' starting at s->pos (the '['). */
static gboolean
scan_compound_unit (Scanner *s,
                    double  *factor)
{
  gsize open = s->pos, close, slash = G_MAXSIZE;
  double num, den = 1.0;

  for (close = open + 1; close < s->length && s->text[close] != ']'; close++)
    if (s->text[close] == '/')
      {
        if (slash != G_MAXSIZE)
          return scan_fail (s, close, _("a bracketed unit may contain only one /"));
        slash = close;
      }
  if (close >= s->length)
    return scan_fail (s, open, _("missing ] after the unit"));
  if (!scan_unit_factor (s, open + 1, slash != G_MAXSIZE ? slash : close, &num))
    return FALSE;
  if (slash != G_MAXSIZE && !scan_unit_factor (s, slash + 1, close, &den))
    return FALSE;
  *factor = num / den;
  s->pos = close + 1;
  return TRUE;
}

static gboolean scan_level (Scanner  *s,
                            guint     depth,
                            double   *value,
                            gboolean *explicit_unit);

static gboolean
scan_number (Scanner *s,
             double  *value)
{
  gsize start = s->pos, p = s->pos;
  char buffer[G_ASCII_DTOSTR_BUF_SIZE * 2];

  while (p < s->length && g_ascii_isdigit (s->text[p]))
    p++;
  if (p < s->length && s->text[p] == '.')
    {
      if (p + 1 >= s->length || !g_ascii_isdigit (s->text[p + 1]))
        return scan_fail (s, p, _("expected digits after the decimal point"));
      p++;
      while (p < s->length && g_ascii_isdigit (s->text[p]))
        p++;
    }
  if (p < s->length && s->text[p] == 'e')
    {
      gsize q = p + 1;

      if (q < s->length && (s->text[q] == '+' || s->text[q] == '-'))
        q++;
      if (q < s->length && g_ascii_isdigit (s->text[q]))
        {
          while (q < s->length && g_ascii_isdigit (s->text[q]))
            q++;
          p = q;
        }
    }
  if (p - start >= sizeof buffer)
    return scan_fail (s, start, _("the number is too long"));
  memcpy (buffer, s->text + start, p - start);
  buffer[p - start] = '\0';
  *value = g_ascii_strtod (buffer, NULL);
  if (!isfinite (*value))
    {
      /* At the value as written: a sign that is its own (no operand before it) too. */
      gsize at = start;

      if (at > 0 && (s->text[at - 1] == '-' || s->text[at - 1] == '+') &&
          (at == 1 || strchr ("(*/^+-|&! \t", s->text[at - 2]) != NULL))
        at--;
      return scan_fail (s, at, _("the number is out of range"));
    }
  s->pos = p;
  return TRUE;
}

static double
apply_function (int    index,
                double x)
{
  switch (index)
    {
    case 0: return sin (x);
    case 1: return cos (x);
    case 2: return tan (x);
    case 3: return exp (x);
    case 4: return log (x);
    default: return sqrt (x);
    }
}

static gboolean
is_number (GArray *items,
           guint   i)
{
  return i < items->len && g_array_index (items, Item, i).kind == ITEM_NUMBER;
}

static gboolean
binary_pass (Scanner    *s,
             GArray     *items,
             const char *operators)
{
  for (guint i = 0; i < items->len; i++)
    {
      Item *op = &g_array_index (items, Item, i);
      double a, b, r;

      if (op->kind != ITEM_OPERATOR || strchr (operators, op->code) == NULL)
        continue;
      if (i == 0 || !is_number (items, i - 1))
        return scan_fail (s, op->offset, _("expected a number before “%c”"), op->code);
      if (!is_number (items, i + 1))
        return scan_fail (s, op->offset, _("expected a number after “%c”"), op->code);
      a = g_array_index (items, Item, i - 1).value;
      b = g_array_index (items, Item, i + 1).value;
      switch (op->code)
        {
        case '^': r = pow (a, b); break;
        case '*': r = a * b; break;
        case '/':
          if (b == 0.0)
            return scan_fail (s, op->offset, _("division by zero"));
          r = a / b;
          break;
        case '+': r = a + b; break;
        case '-': r = a - b; break;
        case '|': r = (a != 0.0 || b != 0.0) ? 1.0 : 0.0; break;
        default: r = (a != 0.0 && b != 0.0) ? 1.0 : 0.0; break;
        }
      if (!isfinite (r))
        return scan_fail (s, op->offset, _("the result is not a finite number"));
      g_array_index (items, Item, i - 1).value = r;
      g_array_remove_range (items, i, 2);
      i--;
    }
  return TRUE;
}

/* The passes of specs/scenebuilder.md 2.3 on one parenthesis level. */
static gboolean
reduce (Scanner *s,
        GArray  *items,
        gsize    level_start,
        double  *value)
{
  for (guint i = items->len; i-- > 0;)
    {
      Item *it = &g_array_index (items, Item, i);

      if (it->kind != ITEM_FUNCTION)
        continue;
      if (!is_number (items, i + 1))
        return scan_fail (s, it->offset, _("a function needs a number or a parenthesised group right after it"));
      it->kind = ITEM_NUMBER;
      it->value = apply_function (it->code, g_array_index (items, Item, i + 1).value);
      if (!isfinite (it->value))
        return scan_fail (s, it->offset, _("the result is not a finite number"));
      g_array_remove_index (items, i + 1);
    }

  for (guint i = items->len; i-- > 0;)
    {
      Item *it = &g_array_index (items, Item, i);

      if (it->kind != ITEM_OPERATOR || (it->code != '+' && it->code != '-' && it->code != '!'))
        continue;
      if (i > 0 && is_number (items, i - 1))
        continue;
      if (!is_number (items, i + 1))
        return scan_fail (s, it->offset, _("expected a number after “%c”"), it->code);
      {
        double x = g_array_index (items, Item, i + 1).value;

        it->kind = ITEM_NUMBER;
        it->value = it->code == '-' ? -x : it->code == '!' ? (x == 0.0 ? 1.0 : 0.0) : x;
        g_array_remove_index (items, i + 1);
      }
    }

  if (!binary_pass (s, items, "^") || !binary_pass (s, items, "*/") ||
      !binary_pass (s, items, "+-") || !binary_pass (s, items, "|&"))
    return FALSE;

  for (guint i = 0; i < items->len; i++)
    {
      Item *it = &g_array_index (items, Item, i);

      if (it->kind != ITEM_UNIT)
        continue;
      if (i > 0 && is_number (items, i - 1))
        {
          g_array_index (items, Item, i - 1).value *= it->value;
          g_array_remove_index (items, i);
          i--;
        }
      else
        it->kind = ITEM_NUMBER;
    }

  if (items->len == 0)
    return scan_fail (s, level_start, _("expected a number"));
  if (items->len > 1)
    return scan_fail (s, g_array_index (items, Item, 1).offset,
                      _("expected an operator between two values (write 2*pi, not 2pi, and at most one unit, at the end)"));
  *value = g_array_index (items, Item, 0).value;
  if (!isfinite (*value))
    return scan_fail (s, level_start, _("the result is not a finite number"));
  return TRUE;
}

static gboolean
scan_level (Scanner  *s,
            guint     depth,
            double   *value,
            gboolean *explicit_unit)
{
  g_autoptr(GArray) items = g_array_new (FALSE, FALSE, sizeof (Item));
  gsize level_start = s->pos;

  if (depth > KM_SB_EXPR_MAX_DEPTH)
    return scan_fail (s, s->pos, _("parentheses nested too deeply (at most %d levels)"),
                      KM_SB_EXPR_MAX_DEPTH);

  while (s->pos < s->length)
    {
      char c = s->text[s->pos];
      Item item = { ITEM_NUMBER, 0.0, 0, s->pos };

      if (g_ascii_isdigit (c) || c == '.')
        {
          if (!scan_number (s, &item.value))
            return FALSE;
        }
      else if (is_ident_char (c))
        {
          gsize start = s->pos, len;

          while (s->pos < s->length && is_ident_char (s->text[s->pos]))
            s->pos++;
          len = s->pos - start;
          if (km_sb_unit_lookup (s->text + start, len, &item.value))
            {
              item.kind = ITEM_UNIT;
              *explicit_unit = TRUE;
              s->paren_unit |= depth > 0;
            }
          else if (len == 2 && memcmp (s->text + start, "pi", 2) == 0)
            item.value = G_PI;
          else
            {
              item.kind = ITEM_FUNCTION;
              item.code = -1;
              for (guint f = 0; f < G_N_ELEMENTS (function_names); f++)
                if (strlen (function_names[f]) == len &&
                    memcmp (function_names[f], s->text + start, len) == 0)
                  item.code = (int) f;
              if (item.code < 0)
                return scan_fail (s, start, _("unknown name “%.*s” (expected a unit, pi or a function)"),
                                  (int) MIN (len, 64), s->text + start);
            }
        }
      else if (c == '[')
        {
          item.kind = ITEM_UNIT;
          *explicit_unit = TRUE;
          s->paren_unit |= depth > 0;
          if (!scan_compound_unit (s, &item.value))
            return FALSE;
        }
      else if (c == '(')
        {
          gboolean inner_unit = FALSE;

          s->pos++;
          if (!scan_level (s, depth + 1, &item.value, &inner_unit))
            return FALSE;
        }
      else if (c == ')')
        {
          if (depth == 0)
            return scan_fail (s, s->pos, _("“)” without a matching “(”"));
          s->pos++;
          return reduce (s, items, level_start, value);
        }
      else if (c == '$')
        {
          /* Calculator variables: the Builder never sets any, so they are 0. */
          gsize p = s->pos + 1;

          if (p >= s->length || s->text[p] != '(')
            return scan_fail (s, s->pos, _("unknown variable (expected $(name))"));
          while (p < s->length && s->text[p] != ')')
            p++;
          if (p >= s->length)
            return scan_fail (s, s->pos, _("missing ) after the variable name"));
          s->pos = p + 1;
        }
      else if (strchr ("+-*/^!|&", c) != NULL && c != '\0')
        {
          item.kind = ITEM_OPERATOR;
          item.code = c;
          s->pos++;
          if ((c == '|' || c == '&') && s->pos < s->length && s->text[s->pos] == c)
            s->pos++;
        }
      else if (g_ascii_isspace (c))
        return scan_fail (s, s->pos, _("a number may not contain spaces"));
      else
        return scan_fail (s, s->pos, _("unexpected character in a number"));
      g_array_append_val (items, item);
    }
  /* An unclosed “(” is accepted, as in Scenebuilder. */
  return reduce (s, items, level_start, value);
}

/**
 * km_sb_eval_real:
 * @text: the expression, without surrounding blanks
 * @dim: the attribute's dimension; a value without a unit is scaled by its default unit
 * @error_offset: (out): on failure, the byte offset in @text of the offending character
 * @error_message: (out) (transfer full): on failure, what was expected (translated)
 */
gboolean
km_sb_eval_real (const char      *text,
                 gsize            length,
                 KmSbDim          dim,
                 const KmSbUnits *units,
                 double          *value,
                 gsize           *error_offset,
                 char           **error_message)
{
  return km_sb_eval_real_full (text, length, dim, units, value, NULL, error_offset,
                               error_message);
}

/**
 * km_sb_eval_real_full:
 * @flags: (out) (optional): %KM_SB_VALUE_PARENTHESISED_UNIT when a unit stands inside
 *   parentheses while the default scale of @dim is not 1 (specs/scenebuilder.md 2.3: such
 *   a unit does not count as explicit, so "(10mm)" with mm as the default is 10 µm);
 *   %KM_SB_VALUE_DEFAULT_UNIT when the default scale of @dim was applied
 *
 * km_sb_eval_real(), also telling what is legal but probably not meant.
 */
gboolean
km_sb_eval_real_full (const char      *text,
                      gsize            length,
                      KmSbDim          dim,
                      const KmSbUnits *units,
                      double          *value,
                      KmSbValueFlags  *flags,
                      gsize           *error_offset,
                      char           **error_message)
{
  Scanner s = { text, length, 0, 0, NULL, FALSE };
  gboolean explicit_unit = FALSE;
  double v;

  g_return_val_if_fail (text != NULL, FALSE);
  g_return_val_if_fail (units != NULL, FALSE);
  g_return_val_if_fail (value != NULL, FALSE);

  if (flags)
    *flags = KM_SB_VALUE_OK;
  if (!scan_level (&s, 0, &v, &explicit_unit))
    goto fail;
  if (flags && s.paren_unit && km_sb_units_scale (units, dim) != 1.0)
    *flags |= KM_SB_VALUE_PARENTHESISED_UNIT;
  if (!explicit_unit)
    {
      v *= km_sb_units_scale (units, dim);
      if (flags)
        *flags |= KM_SB_VALUE_DEFAULT_UNIT;
    }
  if (!isfinite (v))
    {
      scan_fail (&s, 0, _("the result is not a finite number"));
      goto fail;
    }
  *value = v;
  return TRUE;

fail:
  if (error_offset)
    *error_offset = s.error_offset;
  if (error_message)
    *error_message = g_steal_pointer (&s.error_message);
  g_free (s.error_message);
  return FALSE;
}

static void
set_error (gsize      *error_offset,
           char      **error_message,
           gsize       offset,
           char       *message)
{
  if (error_offset)
    *error_offset = offset;
  if (error_message)
    *error_message = message;
  else
    g_free (message);
}

/* true/True/TRUE/1 and false/False/FALSE/0, blanks around allowed. */
gboolean
km_sb_parse_bool (const char *text,
                  gboolean   *value,
                  gsize      *error_offset,
                  char      **error_message)
{
  static const char * const yes[] = { "true", "True", "TRUE", "1" };
  static const char * const no[] = { "false", "False", "FALSE", "0" };
  gsize start = 0, end;

  g_return_val_if_fail (text != NULL, FALSE);

  end = strlen (text);
  while (start < end && g_ascii_isspace (text[start]))
    start++;
  while (end > start && g_ascii_isspace (text[end - 1]))
    end--;
  for (guint i = 0; i < G_N_ELEMENTS (yes); i++)
    {
      if (strlen (yes[i]) == end - start && memcmp (yes[i], text + start, end - start) == 0)
        {
          *value = TRUE;
          return TRUE;
        }
      if (strlen (no[i]) == end - start && memcmp (no[i], text + start, end - start) == 0)
        {
          *value = FALSE;
          return TRUE;
        }
    }
  set_error (error_offset, error_message, start, g_strdup (_("expected true or false")));
  return FALSE;
}

typedef struct
{
  gsize start;
  gsize end;
} Span;

/* Splits at blanks; at most @max spans (one more is reported, to tell "too many"). */
static guint
split_blanks (const char *text,
              gsize       start,
              gsize       end,
              Span       *spans,
              guint       max)
{
  guint n = 0;
  gsize p = start;

  while (p < end)
    {
      gsize s;

      while (p < end && g_ascii_isspace (text[p]))
        p++;
      if (p >= end)
        break;
      s = p;
      while (p < end && !g_ascii_isspace (text[p]))
        p++;
      if (n < max)
        spans[n] = (Span) { s, p };
      n++;
      if (n > max)
        break;
    }
  return n;
}

/* @flags accumulates; *@unit_offset is the start of the first component with a
 * parenthesised unit (KM_SB_VALUE_PARENTHESISED_UNIT). */
static gboolean
parse_components (const char      *text,
                  gsize            start,
                  gsize            end,
                  guint            n,
                  KmSbDim          dim,
                  const KmSbUnits *units,
                  double          *values,
                  KmSbValueFlags  *flags,
                  gsize           *unit_offset,
                  gsize           *error_offset,
                  char           **error_message)
{
  Span spans[10];
  guint count;

  g_assert (n < G_N_ELEMENTS (spans));

  count = split_blanks (text, start, end, spans, n);
  if (count == 0 || (count != 1 && count != n))
    {
      gsize at = count > n ? spans[n - 1].end : start;

      while (count > n && at < end && g_ascii_isspace (text[at]))
        at++;
      set_error (error_offset, error_message, at,
                 g_strdup_printf (ngettext ("expected %u number", "expected %u numbers", n), n));
      return FALSE;
    }
  for (guint i = 0; i < count; i++)
    {
      gsize offset = 0;
      KmSbValueFlags f = KM_SB_VALUE_OK;

      if (!km_sb_eval_real_full (text + spans[i].start, spans[i].end - spans[i].start, dim,
                                 units, &values[i], &f, &offset, error_message))
        {
          if (error_offset)
            *error_offset = spans[i].start + offset;
          return FALSE;
        }
      if (flags != NULL && (f & KM_SB_VALUE_PARENTHESISED_UNIT) &&
          !(*flags & KM_SB_VALUE_PARENTHESISED_UNIT) && unit_offset != NULL)
        *unit_offset = spans[i].start;
      if (flags != NULL)
        *flags |= f;
    }
  for (guint i = count; i < n; i++)
    values[i] = values[0];
  return TRUE;
}

/**
 * km_sb_parse_vector:
 * @n: the number of components (2, 3 or 4)
 *
 * Blank-separated real expressions, each with its own units; a single value is broadcast
 * to all @n components (as Scenebuilder does).
 */
gboolean
km_sb_parse_vector (const char      *text,
                    guint            n,
                    KmSbDim          dim,
                    const KmSbUnits *units,
                    double          *values,
                    gsize           *error_offset,
                    char           **error_message)
{
  return km_sb_parse_vector_full (text, n, dim, units, values, NULL, NULL, error_offset,
                                  error_message);
}

/**
 * km_sb_parse_vector_full:
 * @flags: (out) (optional): as for km_sb_eval_real_full(), for any component
 * @unit_offset: (out) (optional): where @flags has %KM_SB_VALUE_PARENTHESISED_UNIT, the
 *   byte offset of the first component with a parenthesised unit
 */
gboolean
km_sb_parse_vector_full (const char      *text,
                         guint            n,
                         KmSbDim          dim,
                         const KmSbUnits *units,
                         double          *values,
                         KmSbValueFlags  *flags,
                         gsize           *unit_offset,
                         gsize           *error_offset,
                         char           **error_message)
{
  KmSbValueFlags f = KM_SB_VALUE_OK;
  gsize at = 0;

  g_return_val_if_fail (text != NULL, FALSE);
  g_return_val_if_fail (n >= 1 && n <= 9, FALSE);

  if (flags)
    *flags = KM_SB_VALUE_OK;
  if (unit_offset)
    *unit_offset = 0;
  if (!parse_components (text, 0, strlen (text), n, dim, units, values, &f, &at, error_offset,
                         error_message))
    return FALSE;
  if (flags)
    *flags = f;
  if (unit_offset)
    *unit_offset = at;
  return TRUE;
}

/*
 * The length of the @n numbers in @v, which are scaled in place to their largest magnitude
 * first, so that neither huge ("1e200 1e200 0 0") nor tiny components overflow or vanish
 * in the squares: the direction survives. 0 when all are zero.
 */
static double
scaled_length (double *v,
               guint   n)
{
  double largest = 0.0, sum = 0.0;

  for (guint i = 0; i < n; i++)
    largest = MAX (largest, fabs (v[i]));
  if (largest == 0.0)
    return 0.0;
  for (guint i = 0; i < n; i++)
    {
      v[i] /= largest;
      sum += v[i] * v[i];
    }
  return largest * sqrt (sum);
}

static gboolean
parse_axis (const char      *text,
            gsize            start,
            gsize            end,
            KmVec3          *axis,
            gsize           *error_offset,
            char           **error_message)
{
  KmSbUnits si = KM_SB_UNITS_SI;
  double v[3];

  while (start < end && g_ascii_isspace (text[start]))
    start++;
  while (end > start && g_ascii_isspace (text[end - 1]))
    end--;
  if (end - start == 1 && strchr ("xyzXYZ", text[start]) != NULL)
    {
      char c = g_ascii_tolower (text[start]);

      *axis = km_vec3 (c == 'x', c == 'y', c == 'z');
      return TRUE;
    }
  if (!parse_components (text, start, end, 3, KM_SB_DIM_NONE, &si, v, NULL, NULL, error_offset,
                         error_message))
    return FALSE;
  if (scaled_length (v, 3) < 1e-12)
    {
      set_error (error_offset, error_message, start,
                 g_strdup (_("expected a non-zero rotation axis (x, y, z or three numbers)")));
      return FALSE;
    }
  *axis = km_vec3 (v[0], v[1], v[2]);
  return TRUE;
}

static gboolean
parse_rotation_term (const char      *text,
                     gsize            start,
                     gsize            end,
                     const KmSbUnits *units,
                     KmQuat          *q,
                     KmSbValueFlags  *flags,
                     gsize           *unit_offset,
                     gsize           *error_offset,
                     char           **error_message)
{
  Span spans[10];
  double v[9];
  guint count;
  gsize at = G_MAXSIZE;
  int depth = 0;

  for (gsize p = start; p < end; p++)
    {
      if (text[p] == '(')
        depth++;
      else if (text[p] == ')')
        depth--;
      else if (text[p] == '@' && depth <= 0)
        {
          at = p;
          break;
        }
    }
  if (at != G_MAXSIZE)
    {
      gsize a = start, b = at;
      double angle;
      KmVec3 axis;
      gsize offset = 0;
      KmSbValueFlags f = KM_SB_VALUE_OK;

      while (a < b && g_ascii_isspace (text[a]))
        a++;
      while (b > a && g_ascii_isspace (text[b - 1]))
        b--;
      if (a == b)
        {
          set_error (error_offset, error_message, at, g_strdup (_("expected an angle before @")));
          return FALSE;
        }
      if (!km_sb_eval_real_full (text + a, b - a, KM_SB_DIM_R, units, &angle, &f, &offset,
                                 error_message))
        {
          if (error_offset)
            *error_offset = a + offset;
          return FALSE;
        }
      if ((f & KM_SB_VALUE_PARENTHESISED_UNIT) && !(*flags & KM_SB_VALUE_PARENTHESISED_UNIT))
        *unit_offset = a;
      *flags |= f;
      if (!parse_axis (text, at + 1, end, &axis, error_offset, error_message))
        return FALSE;
      *q = km_quat_from_axis_angle (axis, angle);
      return TRUE;
    }

  count = split_blanks (text, start, end, spans, 9);
  if (count == 4 || count == 9)
    {
      KmSbUnits si = KM_SB_UNITS_SI;

      if (!parse_components (text, start, end, count, KM_SB_DIM_NONE, &si, v, NULL, NULL,
                             error_offset, error_message))
        return FALSE;
      if (count == 4)
        {
          double norm = scaled_length (v, 4);

          if (norm < 1e-12)
            {
              set_error (error_offset, error_message, spans[0].start,
                         g_strdup (_("expected a non-zero quaternion w x y z")));
              return FALSE;
            }
          if (fabs (norm - 1.0) > 1e-6)
            *flags |= KM_SB_VALUE_NORMALIZED;
          *q = km_quat_normalize ((KmQuat) { v[0], v[1], v[2], v[3] });
        }
      else
        {
          KmMat3 m, mt, mtm;
          double worst = 0.0, largest = 0.0;

          /* Column-major: the first three numbers are column 0. */
          for (guint c = 0; c < 3; c++)
            for (guint r = 0; r < 3; r++)
              m.m[r][c] = v[c * 3 + r];
          km_mat3_transpose (&m, &mt);
          km_mat3_mul (&mt, &m, &mtm);
          for (guint r = 0; r < 3; r++)
            for (guint c = 0; c < 3; c++)
              worst = MAX (worst, fabs (mtm.m[r][c] - (r == c ? 1.0 : 0.0)));
          if (worst > 1e-6)
            *flags |= KM_SB_VALUE_NOT_ORTHONORMAL;
          /* The nearest rotation of s·M is that of M (s > 0): scaled to entries of at most
           * 1, huge entries do not overflow in the conversion. */
          for (guint i = 0; i < 9; i++)
            largest = MAX (largest, fabs (v[i]));
          if (largest > 0.0)
            for (guint r = 0; r < 3; r++)
              for (guint c = 0; c < 3; c++)
                m.m[r][c] /= largest;
          *q = km_quat_normalize (km_mat3_to_quat (&m));
          if (!isfinite (q->w) || !isfinite (q->x) || !isfinite (q->y) || !isfinite (q->z))
            {
              set_error (error_offset, error_message, spans[0].start,
                         g_strdup (_("expected a rotation matrix")));
              return FALSE;
            }
        }
      return TRUE;
    }

  set_error (error_offset, error_message, count > 0 ? spans[0].start : start,
             g_strdup (count == 1 ? _("missing @axis: expected a rotation such as 90deg@z")
                                  : _("expected a rotation: angle@axis, w x y z or nine matrix numbers")));
  return FALSE;
}

/**
 * km_sb_parse_rotation:
 * @flags: (out): set when the value had to be repaired (normalised)
 *
 * term ('*' term)*, composed left to right (Hamilton product: intrinsic rotations); a term
 * is w x y z, nine numbers of a column-major matrix, or angle@axis (angle of dimension R,
 * axis x|y|z or three numbers). '*' inside parentheses does not split. A quaternion, an
 * axis or a matrix is scaled to its largest number before it is normalised, so that huge
 * numbers ("1e200 1e200 0 0") keep their direction instead of overflowing; one shorter
 * than 1e-12 is still an error.
 */
gboolean
km_sb_parse_rotation (const char      *text,
                      const KmSbUnits *units,
                      KmQuat          *value,
                      KmSbValueFlags  *flags,
                      gsize           *error_offset,
                      char           **error_message)
{
  if (!km_sb_parse_rotation_full (text, units, value, flags, NULL, error_offset,
                                  error_message))
    return FALSE;
  *flags &= KM_SB_VALUE_NORMALIZED | KM_SB_VALUE_NOT_ORTHONORMAL;
  return TRUE;
}

/**
 * km_sb_parse_rotation_full:
 * @flags: (out): as for km_sb_parse_rotation(), plus %KM_SB_VALUE_PARENTHESISED_UNIT for an
 *   angle (km_sb_eval_real_full())
 * @unit_offset: (out) (optional): where @flags has %KM_SB_VALUE_PARENTHESISED_UNIT, the
 *   byte offset of the first angle with a parenthesised unit
 */
gboolean
km_sb_parse_rotation_full (const char      *text,
                           const KmSbUnits *units,
                           KmQuat          *value,
                           KmSbValueFlags  *flags,
                           gsize           *unit_offset,
                           gsize           *error_offset,
                           char           **error_message)
{
  KmQuat q = KM_QUAT_IDENTITY;
  gsize len, start = 0, at = 0;
  int depth = 0;

  g_return_val_if_fail (text != NULL, FALSE);
  g_return_val_if_fail (units != NULL, FALSE);
  g_return_val_if_fail (value != NULL, FALSE);
  g_return_val_if_fail (flags != NULL, FALSE);

  *flags = KM_SB_VALUE_OK;
  if (unit_offset)
    *unit_offset = 0;
  len = strlen (text);
  for (gsize p = 0; p <= len; p++)
    {
      KmQuat term;

      if (p < len && text[p] == '(')
        depth++;
      else if (p < len && text[p] == ')')
        depth--;
      if (p < len && (text[p] != '*' || depth > 0))
        continue;
      {
        gsize a = start, b = p;

        while (a < b && g_ascii_isspace (text[a]))
          a++;
        if (a == b)
          {
            set_error (error_offset, error_message, MIN (a, len > 0 ? len - 1 : 0),
                       g_strdup (_("expected a rotation such as 90deg@z")));
            return FALSE;
          }
      }
      if (!parse_rotation_term (text, start, p, units, &term, flags, &at, error_offset,
                                error_message))
        return FALSE;
      q = km_quat_mul (q, term);
      start = p + 1;
    }
  if (unit_offset)
    *unit_offset = at;
  *value = km_quat_normalize (q);
  return TRUE;
}
