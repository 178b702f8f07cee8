/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 */

#define G_LOG_DOMAIN "km-ik"

#include "config.h"

#include <math.h>
#include <string.h>
#include <glib/gi18n-lib.h>

#include "km-ik.h"
#include "km-ik-private.h"
#include "km-ik-srs.h"

/*
 * Motions: km_ik_solve_trajectory() solves a sequence of targets as one continuous motion,
 * each frame by km_ik_solve_seeded() from the one before, with a branch search that looks
 * ahead where the frame-by-frame track jumps, and routing through the whole solution set
 * for SRS arms. The single-pose solver is km-ik.c.
 */

#define MOMENTUM_GAIN       0.5    /* a trajectory extrapolates half the last frame's step */
#define FIT_RADIUS_MIN      0.05   /* rad or m: a frame's orientation fit moves a joint as far */
#define FIT_RADIUS_GAIN     2.0    /* ... or this many times as far as its target turns, */
#define FIT_RADIUS_MAX      (0.5 * KM_IK_CONT_JUMP) /* but never further */

/* The largest change of one DOF between @a and @b. */
static double
dof_distance (const double *a,
              const double *b,
              guint         n_dof)
{
  double d = 0.0;

  for (guint i = 0; i < n_dof; i++)
    d = MAX (d, fabs (a[i] - b[i]));
  return d;
}

/*
 * Per frame of @targets (@n_frames, the first @n_valid usable), how far a motion's
 * orientation fit may move a joint (km_ik_solve_seeded()) where the pose cannot be met:
 * FIT_RADIUS_GAIN times the larger of the target's turns from its neighbours (a track is
 * also followed backwards), within FIT_RADIUS_MIN and FIT_RADIUS_MAX. The best fit moves
 * with the target, about as fast as it turns; where it runs off much faster (as when the
 * error nears π, or an optimum the motion followed ends), the motion follows it over
 * several frames at that speed rather than popping.
 */
static double *
fit_radii (const KmTransform *targets,
           guint              n_frames,
           guint              n_valid)
{
  double *r = g_new (double, MAX (n_frames, 1));

  for (guint k = 0; k < n_frames; k++)
    {
      double turn = 0.0;

      if (k < n_valid && k > 0)
        turn = km_mat3_rotation_angle (&targets[k - 1].rot, &targets[k].rot);
      if (k + 1 < n_valid)
        turn = MAX (turn, km_mat3_rotation_angle (&targets[k].rot, &targets[k + 1].rot));
      r[k] = isfinite (turn) ? CLAMP (FIT_RADIUS_GAIN * turn, FIT_RADIUS_MIN, FIT_RADIUS_MAX)
                             : FIT_RADIUS_MIN;
    }
  return r;
}

/*
 * Momentum: the seed for frame k extrapolated from the answers to frames k−2 (@before) and
 * k−1 (@last), q_{k−1} + MOMENTUM_GAIN · (q_{k−1} − q_{k−2}), clamped into the limits.
 * FALSE (no extrapolation) when the motion stood still or its last step was a jump
 * (km_ik_jump_distance() with @jump_scale above KM_IK_CONT_JUMP): a jump is no velocity to
 * continue.
 */
static gboolean
momentum_seed (const KmIkProblem *problem,
               const double      *before,
               const double      *last,
               const double      *jump_scale,
               double            *ahead)
{
  double step = km_ik_jump_distance (last, before, jump_scale, problem->n_dof);

  if (!(step > 0.0) || step > KM_IK_CONT_JUMP)
    return FALSE;
  for (guint i = 0; i < problem->n_dof; i++)
    ahead[i] = last[i] + MOMENTUM_GAIN * (last[i] - before[i]);
  km_skeleton_clamp (problem->skeleton, ahead);
  return TRUE;
}

/*
 * Trajectories: a motion tracked frame by frame (motion_frame), with a branch search that
 * looks ahead. Where the track jumps at frame k (some DOF moves more than KM_IK_CONT_JUMP between
 * frames, as when a joint runs into its limit on the branch the motion started on), the
 * segment from its first frame s is tracked again from other starts, and the track that
 * jumps latest wins. The starts, in this order:
 *   - the answer the motion jumped to, then answers to frame k from TRAJ_JUMP_STARTS starts
 *     within the limits, each tracked backwards to s; where such a track itself jumps
 *     before s, the motion so far slides into it instead (merge_tracks: a redundant
 *     chain's self-motion, no jump);
 *   - the track so far again from s, and from TRAJ_PULL_LATE frames before the jump,
 *     drifting towards the middle of the ranges (traj_pulls);
 *   - in the first search of a segment only: s's answer with every revolute joint that has
 *     more than a turn of range (finite limits) turned by 2π towards its middle, then each
 *     such joint alone; answers to s's target from TRAJ_RANDOM_STARTS starts within the
 *     limits (through the analytic hook when the problem has one).
 * Frame 0 kept as the seed (seed_meets_first()) is every track's start: no start at it is
 * tried, and a track back to it that arrives at another answer slides into from the one
 * kept (merge_tracks) or loses.
 * Each is tracked forwards until it jumps, at most TRAJ_WINDOW frames past k. Bounded work:
 * at most TRAJ_MAX_CANDIDATES starts per search and TRAJ_MAX_ROUNDS searches per segment,
 * and none once the jump is more than TRAJ_WINDOW frames past s. When no start gets past
 * k, the jump stands and a new segment begins at k, on the track through frame k that goes
 * furthest (Motion.fb). Where the targets themselves force the jump (jump_forced: answers to
 * frames k − 1 and k from the same starts lie apart, as for consecutive keyframes of
 * unrelated poses), it stands at once, unsearched. So does a jump next to a target that the
 * track misses (frame k − 1 or k not converged) where frame s met its own: the targets left
 * what the chain reaches since s (unrelated poses interpolated through the edge of the
 * workspace or a singularity), the best fit jumps where the nearest pose it reaches moves
 * over, and a search there rarely gets further but costs most (every missed frame a whole
 * solve with its restarts, for every start). A motion's searches together spend at most
 * TRAJ_SEARCH_SOLVES × max_iterations iterations per frame; after that, jumps stand
 * unsearched. A search revises frames back to s only, so frames are final (and
 * handed to the caller) once they lie before the current segment or more than TRAJ_WINDOW
 * frames behind the track.
 */
#define TRAJ_WINDOW          4096  /* frames a search may look back, and ahead */
#define TRAJ_MAX_CANDIDATES  40    /* starts tracked per search */
#define TRAJ_MAX_ROUNDS      4     /* searches per segment */
#define TRAJ_RANDOM_STARTS   12    /* starts within the limits at s, first search only */
#define TRAJ_JUMP_STARTS     20    /* starts within the limits at the frame that jumped */
#define TRAJ_SAME            0.05  /* rad or m: starts nearer than this are one */
#define TRAJ_MERGE_STEP      0.1   /* rad or m per frame: how fast one track slides into another */
#define TRAJ_PULL_LATE       150   /* frames before a jump where a late drift starts */
#define TRAJ_SEARCH_SOLVES   4     /* a motion's searches: iterations worth this many whole
                                    * solves (max_iterations) per frame */
#define TRAJ_FORCED_PROBES   4     /* starts that tell a jump the targets force (jump_forced) */

/*
 * Routing (SRS arms, see km-ik-srs.c): before a motion is tracked, a shortest path through its
 * whole solution set (eight families × arm angles per frame) that no joint leaves by more
 * than a step per frame wherever such a path exists; the track then follows that route
 * (route_frame), which decides ahead of time the things a frame-by-frame track cannot know:
 * on which side of a singularity to pass and which family to be in when a joint's limit
 * comes, hundreds of frames later. Where the route passes a singularity of a spherical group
 * (its outer axes within ROUTE_ZONE_ANGLE of aligned, or a route step above ROUTE_ZONE_STEP)
 * its samples of the fast-turning joints mean little, so the track heads straight for where
 * the route comes out, on the branch it comes out on, passing through the singularity from
 * a seed mirrored through it when the group is within ROUTE_CROSS_ANGLE of it. Route nodes
 * near the stretched elbow are checked by a short solve (ROUTE_CHECK_ITERATIONS, converging
 * within ROUTE_CHECK_NEAR), since the closed form of a nearly-SRS arm misjudges its reach
 * there. A track that loses its route drifts back towards it by ROUTE_PULL per frame; a
 * jump it still makes goes to the branch search as before.
 */
#define ROUTE_ZONE_ANGLE       0.0245 /* rad */
#define ROUTE_ZONE_STEP        0.3    /* rad or m */
#define ROUTE_CROSS_ANGLE      0.1    /* rad */
#define ROUTE_CHECK_ITERATIONS 30
#define ROUTE_CHECK_NEAR       0.3    /* rad or m */
#define ROUTE_PULL             0.05   /* rad or m per frame */
#define ROUTE_ON               0.05   /* rad or m: an answer this near the route follows it */
/* Progress of an SRS arm's solve: the plain track's share when a routed pass may follow,
 * the route's share of the routed pass, and the share kept for solving the plain track whole
 * after all (see km_ik_solve_trajectory_full()). Measured on iiwa7, 10 000 frames, two
 * cores: 0.8 s of plain track up to its first final jump (2.3 s whole), 5 to 5.6 s of CPU
 * routing, on two threads (about half that when both cores are free), 0.3 to 0.5 s of
 * tracking the route. */
#define PLAIN_PROGRESS_SHARE   0.2
#define ROUTE_PROGRESS_SHARE   0.9
#define PLAIN_RERUN_SHARE      0.1

/* Where a solve reports its progress: the part [from, to] of the whole that this pass is;
 * *shown is the last fraction reported, shared by the passes of one solve. */
typedef struct
{
  KmIkProgressFunc func;
  gpointer         data;
  double           from, to;
  double          *shown;
} Progress;

/* Reports @done (0 … 1) of @progress's pass when it moved the whole by a step worth telling
 * (1/500) or finished it; never backwards. */
static void
progress_report (const Progress *progress,
                 double          done)
{
  double fraction;

  if (progress == NULL || progress->func == NULL)
    return;
  fraction = progress->from + (progress->to - progress->from) * CLAMP (done, 0.0, 1.0);
  if (fraction <= *progress->shown || (fraction - *progress->shown < 0.002 && done < 1.0))
    return;
  *progress->shown = fraction;
  progress->func (fraction, progress->data);
}

/* rad or m per frame: drifts of a track towards the middle of the ranges that a search tries */
static const double traj_pulls[] = { 0.01, 0.03 };

typedef struct
{
  const KmIkProblem *problem;
  const KmTransform *targets;
  guint              n_dof;
  GCancellable      *cancellable;
  KmIkSolution       plain;   /* scratch of motion_frame */
  double            *ahead;   /* n_dof: the extrapolated seed */
  double            *start;   /* n_dof: a search's start */
  double            *tried;   /* TRAJ_MAX_CANDIDATES × n_dof: a search's starts so far */
  guint              n_seen;  /* how many of them are recorded */
  double            *lo, *hi; /* n_dof limits */
  double            *mid;     /* n_dof: the middle of the ranges */
  double            *jump_scale; /* n_dof: km_ik_jump_scales() of the limits */
  double             pull;    /* > 0: motion_frame drifts this far towards mid per frame */
  const KmIkSrs     *srs;     /* an SRS arm's closed form (the caller's), or NULL */
  double            *route;   /* n_frames × n_dof: where its motion goes, or NULL */
  guint             *route_exit; /* per frame: the first frame from there on where the route
                                  * is clear of singular stretches */
  double            *goal;    /* n_dof: where route_frame() heads */
  const Progress    *routing; /* the route's part of the progress, or NULL */
  guint              route_jumps; /* the route's jumps (G_MAXUINT: no route) */
  /* A search's fallback: of the tracks through the frame that jumped, the one that goes
   * furthest (valid from that frame to fb_stop, which jumped when fb_jumped), whether or not
   * it reaches back to the segment's start. */
  KmIkSolution      *fb;
  guint              fb_stop;
  gboolean           fb_jumped;
  gboolean          *turns;   /* n_dof: on the path, revolute, more than a turn of range */
  gboolean          *on_path; /* n_dof: a DOF that the solve moves (with the masters off the
                               * path of followers on it) */
  gboolean          *unturn;  /* n_dof: on the path, revolute, a turn or more of range
                               * (unlimited too), no linked joint: whole turns of it are the
                               * same pose (unturn_segment()) */
  double            *fit_radius; /* per frame: how far its orientation fit may move a joint
                                  * (fit_radii()) */
  gboolean           keep_first;    /* frame 0 is the problem's seed, which meets its target
                                     * within the limits (seed_meets_first()): it stays, every
                                     * track of a search and the route start from it */
  gboolean           searching;     /* motion_solve() counts its iterations in search_work */
  guint64            search_work;   /* iterations of the searches' solves so far */
  guint64            search_budget; /* ... and how many the motion may spend on them */
} Motion;

/* How far @a is from @b as a step of the motion (km_ik_jump_distance()): a jump when above
 * KM_IK_CONT_JUMP. */
static double
motion_step (const Motion *m,
             const double *a,
             const double *b)
{
  return km_ik_jump_distance (a, b, m->jump_scale, m->n_dof);
}

/* Frame @k of the motion from @seed (km_ik_solve_seeded()); during a search (m->searching)
 * its iterations count in m->search_work. */
static gboolean
motion_solve (Motion       *m,
              guint         k,
              const double *seed,
              guint64       random_seed,
              gboolean      continuous,
              KmIkSolution *out,
              GError      **error)
{
  if (!km_ik_solve_seeded (m->problem, &m->targets[k], seed, random_seed, continuous,
                           m->fit_radius[k], out, m->cancellable, error))
    return FALSE;
  if (m->searching)
    m->search_work += out->iterations;
  return TRUE;
}

/* KmIkSrsCheck: a short local solve from @q (no restarts) converges near it. Called from
 * the route's threads: touches nothing of @user_data's but what stays constant. A local
 * solve (km_ik_solve_local()) ends where its warm descent spent ROUTE_CHECK_ITERATIONS
 * without converging: the motion search's further stages, with no iterations left, met
 * none of those poses near @q and cost a tenth of the whole solve (iiwa7-warm, 10 000
 * frames: 35 000 of 170 000 checks). */
static gboolean
route_check (guint         frame,
             const double *q,
             gpointer      user_data)
{
  const Motion *m = user_data;
  KmIkProblem local = *m->problem;
  KmIkSolution s = { 0 };
  gboolean near;

  local.max_iterations = ROUTE_CHECK_ITERATIONS;
  local.max_restarts = 0;
  local.analytic = NULL;
  near = km_ik_solve_local (&local, &m->targets[frame], q, m->fit_radius[frame], &s) &&
         s.converged && dof_distance (s.q, q, m->n_dof) < ROUTE_CHECK_NEAR;
  km_ik_solution_clear (&s);
  return near;
}

/*
 * Frame @k of a routed motion (see ROUTE_ZONE_ANGLE): of the converged answers within
 * KM_IK_CONT_JUMP of @last, the one nearest to where the route goes. Tried from the route's own
 * configuration (or, through a singular stretch, the way straight towards where the route
 * comes out of it), from @last, from half and a quarter of the way there, and, near a
 * singularity of the shoulder, the wrist or the elbow, from @last mirrored through it (how a
 * motion passes through into the other family). *@found is FALSE when none follows on.
 */
static gboolean
route_frame (Motion             *m,
             guint               k,
             const KmIkSolution *last,
             KmIkSolution       *s,
             gboolean           *found,
             GError            **error)
{
  guint n_dof = m->n_dof, exit = m->route_exit[k];
  const double *out = &m->route[(gsize) exit * n_dof];
  double best_key = INFINITY;

  if (exit > k)
    for (guint d = 0; d < n_dof; d++)
      m->goal[d] = last->q[d] + (out[d] - last->q[d]) / (double) (exit - k + 1);
  else
    memcpy (m->goal, out, n_dof * sizeof (double));

  for (guint c = 0; c < 4 + KM_IK_SRS_SINGULARITIES; c++)
    {
      const double *seed = c == 0 ? m->goal : last->q;
      double key;

      if (c == 2 || c == 3)
        {
          double t = c == 2 ? 0.5 : 0.25;

          if (best_key < 1e-3)
            continue;
          for (guint d = 0; d < n_dof; d++)
            m->ahead[d] = last->q[d] + t * (m->goal[d] - last->q[d]);
          seed = m->ahead;
        }
      else if (c >= 4)
        {
          if (!km_ik_srs_near_singular (m->srs, c - 4, last->q, ROUTE_CROSS_ANGLE))
            continue;
          memcpy (m->ahead, last->q, n_dof * sizeof (double));
          km_ik_srs_cross (m->srs, c - 4, m->ahead);
          seed = m->ahead;
        }
      if (!motion_solve (m, k, seed, m->problem->random_seed + k, TRUE, &m->plain, error))
        return FALSE;
      if (!m->plain.converged || motion_step (m, m->plain.q, last->q) > KM_IK_CONT_JUMP)
        continue;
      /* Through a singular stretch, the branch the route comes out on counts first. */
      key = dof_distance (m->plain.q, m->goal, n_dof);
      if (exit > k)
        key = km_ik_srs_branch_distance (m->srs, m->plain.q, out) +
              0.1 * dof_distance (m->plain.q, last->q, n_dof);
      if (key < best_key)
        {
          best_key = key;
          km_ik_solution_copy_into (&m->plain, s);
        }
      /* On the route (outside singular stretches): nothing to choose. */
      if (c == 0 && exit == k && best_key < ROUTE_ON)
        break;
    }
  *found = isfinite (best_key);
  return TRUE;
}

/*
 * The route of an SRS arm's motion over frames 0 .. @n − 1 (see ROUTE_ZONE_ANGLE), from
 * @first (the answer to frame 0) on, for the arm's closed form @srs (with m->keep_first, a
 * route that follows on from @first, which the motion keeps, wherever one does); m->route and
 * m->route_exit, or both NULL when the motion cannot be routed or its route jumps
 * @max_jumps times or more (then it cannot do better than the plain track). FALSE only
 * when cancelled.
 */
static void
route_progress_cb (double   fraction,
                   gpointer user_data)
{
  Motion *m = user_data;

  progress_report (m->routing, fraction);
}

static gboolean
motion_route (Motion             *m,
              const KmIkSrs      *srs,
              guint               n,
              const KmIkSolution *first,
              guint               max_jumps)
{
  guint n_dof = m->n_dof, jumps;
  double *route;
  guint *exit;

  m->srs = srs;
  m->route_jumps = G_MAXUINT;
  if (n < 2)
    return TRUE;
  route = g_new (double, (gsize) n * n_dof);
  if (km_ik_srs_route (m->srs, m->targets, n, first->q, m->keep_first, route, &jumps,
                       route_check, m, route_progress_cb, m, m->cancellable))
    m->route_jumps = jumps;
  if (m->route_jumps == G_MAXUINT || jumps >= max_jumps)
    {
      g_free (route);
      return !g_cancellable_is_cancelled (m->cancellable);
    }
  exit = g_new (guint, n);
  for (guint f = n; f-- > 0;)
    {
      const double *rq = &route[(gsize) f * n_dof];
      gboolean singular = km_ik_srs_near_singular (m->srs, 0, rq, ROUTE_ZONE_ANGLE) ||
                          km_ik_srs_near_singular (m->srs, 1, rq, ROUTE_ZONE_ANGLE) ||
                          (f > 0 && dof_distance (rq, rq - n_dof, n_dof) > ROUTE_ZONE_STEP) ||
                          (f + 1 < n && dof_distance (rq, rq + n_dof, n_dof) > ROUTE_ZONE_STEP);

      exit[f] = singular && f + 1 < n ? exit[f + 1] : f;
    }
  m->route = route;
  m->route_exit = exit;
  return TRUE;
}

/*
 * Frame @k of a motion, warm-started from @last (the answer to the neighbouring frame the
 * motion comes from). With @before (the answer one further back, or %NULL) an extrapolated
 * seed is tried first (momentum: @last + MOMENTUM_GAIN · (@last − @before), not after a jump
 * nor after a frame that did not converge): its answer stands when it converged within
 * KM_IK_CONT_JUMP of @last; otherwise the frame is solved from @last as well and the converged
 * answer nearer to it wins (the plain one when neither converged). Random seed
 * problem->random_seed + k. A routed motion (m->route) goes where its route goes
 * (route_frame) and falls back to the above, drifting back towards the route, only where
 * that does not follow on.
 */
static gboolean
motion_frame (Motion             *m,
              guint               k,
              const double       *before,
              const KmIkSolution *last,
              KmIkSolution       *s,
              GError            **error)
{
  const KmIkProblem *problem = m->problem;
  guint64 random_seed = problem->random_seed + k;
  guint n_dof = m->n_dof;
  gboolean ok;

  gboolean ahead;

  if (m->route != NULL)
    {
      gboolean found;

      if (!route_frame (m, k, last, s, &found, error))
        return FALSE;
      if (found)
        return TRUE;
    }
  ahead = before != NULL && last->converged &&
          momentum_seed (problem, before, last->q, m->jump_scale, m->ahead);

  if (m->pull > 0.0 || m->route != NULL)
    {
      /* A search's track that drifts through its self-motion towards the middle; a routed
       * motion that lost its route, back towards it. */
      const double *to = m->route != NULL ? &m->route[(gsize) k * n_dof] : m->mid;
      double rate = m->route != NULL ? ROUTE_PULL : m->pull;

      if (!ahead)
        memcpy (m->ahead, last->q, n_dof * sizeof (double));
      for (guint d = 0; d < n_dof; d++)
        if (m->on_path[d] && isfinite (to[d]))
          m->ahead[d] += CLAMP (to[d] - m->ahead[d], -rate, rate);
      km_skeleton_clamp (problem->skeleton, m->ahead);
      ahead = TRUE;
    }
  if (!ahead)
    return motion_solve (m, k, last->q, random_seed, TRUE, s, error);

  /* The extrapolated seed first: at a singular crossing it lies on the motion's own side,
   * where the previous answer alone is ambiguous. */
  ok = motion_solve (m, k, m->ahead, random_seed, TRUE, s, error);
  if (ok && !(s->converged && motion_step (m, s->q, last->q) <= KM_IK_CONT_JUMP))
    {
      ok = motion_solve (m, k, last->q, random_seed, TRUE, &m->plain, error);
      if (ok)
        {
          guint iterations = s->iterations + m->plain.iterations;
          guint restarts = s->restarts + m->plain.restarts + 1;

          if (!s->converged ||
              (m->plain.converged &&
               dof_distance (m->plain.q, last->q, n_dof) <= dof_distance (s->q, last->q, n_dof)))
            km_ik_solution_copy_into (&m->plain, s);
          s->iterations = iterations;
          s->restarts = restarts;
        }
    }
  return ok;
}

static gboolean
motion_jumped (const Motion       *m,
               const KmIkSolution *a,
               const KmIkSolution *b)
{
  return motion_step (m, a->q, b->q) > KM_IK_CONT_JUMP;
}

/*
 * Tracks @buf forwards from frame @from (already solved) up to @limit. @stop is the first
 * frame that jumped (solved and stored, @jumped set) or @limit. @momentum: buf[from − 1] is
 * part of the same motion.
 */
static gboolean
track_forward (Motion       *m,
               KmIkSolution *buf,
               guint         from,
               guint         limit,
               gboolean      momentum,
               guint        *stop,
               gboolean     *jumped,
               GError      **error)
{
  *jumped = FALSE;
  for (guint k = from + 1; k < limit; k++)
    {
      const double *before = k >= 2 && (k - 1 > from || momentum) ? buf[k - 2].q : NULL;

      if (!motion_frame (m, k, before, &buf[k - 1], &buf[k], error))
        {
          *stop = k;
          return FALSE;
        }
      if (motion_jumped (m, &buf[k - 1], &buf[k]))
        {
          *stop = k;
          *jumped = TRUE;
          return TRUE;
        }
    }
  *stop = limit;
  return TRUE;
}

/* Tracks @buf backwards from frame @from (already solved) down to @to. @first: the earliest
 * frame reached without a jump (@to when none jumped). */
static gboolean
track_backward (Motion       *m,
                KmIkSolution *buf,
                guint         from,
                guint         to,
                guint        *first,
                GError      **error)
{
  *first = from;
  for (guint k = from; k-- > to;)
    {
      const double *before = k + 2 <= from ? buf[k + 2].q : NULL;

      if (!motion_frame (m, k, before, &buf[k + 1], &buf[k], error))
        return FALSE;
      if (motion_jumped (m, &buf[k + 1], &buf[k]))
        return TRUE;
      *first = k;
    }
  return TRUE;
}

/*
 * Merges the track @cur (from frame @s, jumped at @k) into the branch that @buf holds from
 * frame @a to @k (tracked backwards from the jump): from frame a + 1 on, each frame is solved
 * from the previous transition frame moved towards buf's answer by at most TRAJ_MERGE_STEP
 * per DOF, so that a redundant chain slides through its self-motion from one to the other
 * instead of jumping, until it is within TRAJ_SAME of buf's answer (before frame k).
 * *@merged when that worked without a jump; buf then holds cur[s .. a], the transition, and
 * its own frames after it.
 */
static gboolean
merge_tracks (Motion       *m,
              KmIkSolution *cur,
              KmIkSolution *buf,
              guint         s,
              guint         a,
              guint         k,
              gboolean     *merged,
              GError      **error)
{
  guint n = m->n_dof;

  *merged = FALSE;
  for (guint f = a + 1; f < k; f++)
    {
      const double *prev = f == a + 1 ? cur[a].q : buf[f - 1].q;

      for (guint d = 0; d < n; d++)
        m->start[d] = prev[d] + CLAMP (buf[f].q[d] - prev[d], -TRAJ_MERGE_STEP, TRAJ_MERGE_STEP);
      if (!motion_solve (m, f, m->start, m->problem->random_seed + f, TRUE, &m->plain, error))
        return FALSE;
      if ((cur[f].converged && !m->plain.converged) ||
          motion_step (m, m->plain.q, prev) > KM_IK_CONT_JUMP)
        return TRUE;
      if (dof_distance (m->plain.q, buf[f].q, n) < TRAJ_SAME)
        {
          /* Arrived: buf's own frames follow. */
          if (motion_step (m, m->plain.q, buf[f + 1].q) > KM_IK_CONT_JUMP)
            return TRUE;
          km_ik_solution_copy_into (&m->plain, &buf[f]);
          for (guint g = s; g <= a; g++)
            km_ik_solution_copy_into (&cur[g], &buf[g]);
          *merged = TRUE;
          return TRUE;
        }
      km_ik_solution_copy_into (&m->plain, &buf[f]);
    }
  return TRUE;
}

/*
 * Start @c of a search at a frame whose current answer is @q, into m->start: 0 every
 * turnable joint turned by 2π towards its middle, 1 .. n_dof that DOF alone, then random
 * configurations of the path within the limits. FALSE when start @c does not exist (no joint
 * to turn, or the turn leaves the limits).
 */
static gboolean
search_start (Motion       *m,
              const double *q,
              guint         c,
              guint64      *rng)
{
  guint n = m->n_dof;
  gboolean any = FALSE;

  memcpy (m->start, q, n * sizeof (double));
  if (c <= n)
    {
      for (guint d = 0; d < n; d++)
        if (m->turns[d] && (c == 0 || c == d + 1))
          {
            double x = q[d] > 0.5 * (m->lo[d] + m->hi[d]) ? q[d] - 2 * G_PI : q[d] + 2 * G_PI;

            if (x >= m->lo[d] && x <= m->hi[d])
              m->start[d] = x, any = TRUE;
          }
      return any;
    }
  for (guint d = 0; d < n; d++)
    if (m->on_path[d])
      {
        double u = km_ik_rng_uniform (rng), lo = m->lo[d], hi = m->hi[d];

        if (isfinite (lo) && isfinite (hi))
          m->start[d] = km_ik_lerp_range (lo, hi, u);
        else if (!isfinite (lo) && !isfinite (hi))
          m->start[d] = q[d] + (2 * u - 1) * G_PI;
        else
          {
            /* A turn around the value, slid inside a range with one finite end. */
            double a, b;

            km_range_span (lo, hi, q[d], G_PI, &a, &b);
            m->start[d] = a + u * (b - a);
          }
      }
  return TRUE;
}

/* A search's start @q is new: not within TRAJ_SAME of one recorded (m->n_seen of them);
 * then it is recorded and counts as tried. Starts that a search tries without recording
 * them only count in @n_tried, so only recorded starts are ever compared. */
static gboolean
start_is_new (Motion       *m,
              const double *q,
              guint        *n_tried)
{
  for (guint i = 0; i < m->n_seen; i++)
    if (dof_distance (q, &m->tried[i * m->n_dof], m->n_dof) < TRAJ_SAME)
      return FALSE;
  if (m->n_seen < TRAJ_MAX_CANDIDATES && *n_tried < TRAJ_MAX_CANDIDATES)
    {
      memcpy (&m->tried[m->n_seen++ * m->n_dof], q, m->n_dof * sizeof (double));
      (*n_tried)++;
    }
  return TRUE;
}

/*
 * The branch search of the segment that starts at frame @s, whose track @cur jumped at frame
 * @k (see the comment above TRAJ_WINDOW). Candidate tracks go to *@alt, the best so far to
 * *@best (the two are swapped as needed); when one gets past @k it replaces cur[s ..] and
 * @reach is its end: the frame where it jumped (@jumped) or @horizon.
 */
static gboolean
branch_search (Motion        *m,
               KmIkSolution  *cur,
               KmIkSolution **alt,
               KmIkSolution **best,
               guint          s,
               guint          k,
               guint          horizon,
               gboolean       first_round,
               guint         *reach,
               gboolean      *jumped,
               GError       **error)
{
  guint best_reach = k, n_tried = 0, stop, last, first;
  gboolean best_jumped = TRUE, jmp, ok;
  guint64 rng = m->problem->random_seed ^ (G_GUINT64_CONSTANT (0x9e3779b97f4a7c15) * (s + 1));
  guint n_starts = m->n_dof + 1 + TRAJ_RANDOM_STARTS;
  /* Frame 0 kept (m->keep_first): every track starts from its answer. */
  gboolean keep_start = m->keep_first && s == 0;
  KmIkSolution *tmp;

  m->n_seen = 0;
  start_is_new (m, cur[s].q, &n_tried);
  m->fb_stop = 0;

  /* The branch the motion jumped to, then other answers to frame k, each followed back to
   * s; or, where that does not reach that far, merged into from the track so far (see
   * merge_tracks). The best of those that do neither is the fallback. */
  for (guint c = 0; c <= TRAJ_JUMP_STARTS && n_tried < TRAJ_MAX_CANDIDATES &&
                    m->search_work < m->search_budget &&
                    (best_jumped || best_reach < horizon); c++)
    {
      gboolean merged;

      if (c == 0)
        km_ik_solution_copy_into (&cur[k], &(*alt)[k]);
      else
        {
          search_start (m, cur[k].q, m->n_dof + c, &rng);
          if (!motion_solve (m, k, m->start, m->problem->random_seed + k, FALSE, &(*alt)[k],
                             error))
            return FALSE;
          if ((cur[k].converged && !(*alt)[k].converged) ||
              dof_distance ((*alt)[k].q, cur[k].q, m->n_dof) < TRAJ_SAME ||
              motion_step (m, (*alt)[k].q, cur[k - 1].q) <= KM_IK_CONT_JUMP)
            continue;
          n_tried++;
        }
      if (!track_backward (m, *alt, k, s, &first, error))
        return FALSE;
      if (first == s ? !start_is_new (m, (*alt)[s].q, &n_tried) : first == k)
        continue;
      /* A track back to s whose answer there is another than the one kept slides into from
       * that one instead (merged from s). */
      merged = first == s &&
               !(keep_start && memcmp ((*alt)[s].q, cur[s].q, m->n_dof * sizeof (double)) != 0);
      if (!track_forward (m, *alt, k, horizon, TRUE, &stop, &jmp, error))
        return FALSE;
      if (stop > best_reach && !merged &&
          !merge_tracks (m, cur, *alt, s, first, k, &merged, error))
        return FALSE;
      if (stop > best_reach && merged)
        {
          best_reach = stop, best_jumped = jmp;
          tmp = *alt, *alt = *best, *best = tmp;
        }
      else if (stop > m->fb_stop)
        {
          m->fb_stop = stop, m->fb_jumped = jmp;
          tmp = *alt, *alt = m->fb, m->fb = tmp;
        }
    }
  /* The track so far again, drifting towards the middle of the ranges: from s, and from
   * TRAJ_PULL_LATE frames before the jump. */
  for (guint c = 0; c < 2 * G_N_ELEMENTS (traj_pulls) && n_tried < TRAJ_MAX_CANDIDATES &&
                    m->search_work < m->search_budget &&
                    (best_jumped || best_reach < horizon); c++)
    {
      guint from = c % 2 == 0 ? s : MAX (s, k > TRAJ_PULL_LATE ? k - TRAJ_PULL_LATE : 0);

      if (c % 2 == 1 && from == s)
        continue;
      n_tried++;
      for (guint f = s; f <= from; f++)
        km_ik_solution_copy_into (&cur[f], &(*alt)[f]);
      m->pull = traj_pulls[c / 2];
      ok = track_forward (m, *alt, from, horizon, from > s, &stop, &jmp, error);
      m->pull = 0.0;
      if (!ok)
        return FALSE;
      if (stop > best_reach)
        {
          best_reach = stop, best_jumped = jmp;
          tmp = *alt, *alt = *best, *best = tmp;
        }
    }
  if (!first_round || keep_start)
    n_starts = 0;

  for (guint c = 0; c < n_starts && n_tried < TRAJ_MAX_CANDIDATES &&
                    m->search_work < m->search_budget &&
                    (best_jumped || best_reach < horizon); c++)
    {
      gboolean turn = c <= m->n_dof;

      if (!search_start (m, cur[s].q, c, &rng))
        continue;
      /* A turn is the same pose: kept on its branch. A random start goes where it goes. */
      if (!motion_solve (m, s, m->start, m->problem->random_seed + s, turn, &(*alt)[s], error))
        return FALSE;
      if ((cur[s].converged && !(*alt)[s].converged) || !start_is_new (m, (*alt)[s].q, &n_tried))
        continue;
      if (!track_forward (m, *alt, s, horizon, FALSE, &stop, &jmp, error))
        return FALSE;
      if (stop > best_reach)
        {
          best_reach = stop, best_jumped = jmp;
          tmp = *alt, *alt = *best, *best = tmp;
        }
    }

  *reach = best_reach;
  *jumped = best_jumped;
  if (best_reach == k)
    return TRUE;
  last = best_jumped ? best_reach : best_reach - 1;
  for (guint f = s; f <= last; f++)
    km_ik_solution_copy_into (&(*best)[f], &cur[f]);
  return TRUE;
}

/*
 * Whether the targets themselves force the jump at frame @k, so that no branch search can
 * avoid it (consecutive keyframes of unrelated poses): TRAJ_FORCED_PROBES starts within
 * the limits, each solved for frame k − 1, and frame k solved from that answer. Where the
 * targets move little from one frame to the next, the solver finds an answer to frame k a
 * step from that to k − 1 (on a branch where the chain can follow, which a search would
 * find); where no start leads to one, while at least
 * TRAJ_FORCED_PROBES − 1 of them met both targets, the answers to the two frames lie apart
 * and *@forced is set: the jump stands at once, unsearched. Deterministic: the starts
 * depend on the problem's random seed and @k. FALSE only when cancelled.
 */
static gboolean
jump_forced (Motion             *m,
             guint               k,
             const KmIkSolution *cur,
             gboolean           *forced,
             GError            **error)
{
  guint64 rng = m->problem->random_seed ^ (G_GUINT64_CONSTANT (0xd1b54a32d192ed03) * (k + 1));
  guint met = 0;

  *forced = FALSE;
  for (guint c = 0; c < TRAJ_FORCED_PROBES; c++)
    {
      search_start (m, cur[k].q, m->n_dof + 1 + c, &rng);
      if (!motion_solve (m, k - 1, m->start, m->problem->random_seed + k - 1, FALSE, &m->plain,
                         error))
        return FALSE;
      if (!m->plain.converged)
        continue;
      memcpy (m->ahead, m->plain.q, m->n_dof * sizeof (double));
      if (!motion_solve (m, k, m->ahead, m->problem->random_seed + k, FALSE, &m->plain, error))
        return FALSE;
      if (!m->plain.converged)
        continue;
      if (motion_step (m, m->plain.q, m->ahead) <= KM_IK_CONT_JUMP)
        return TRUE;
      met++;
    }
  *forced = met + 1 >= TRAJ_FORCED_PROBES;
  return TRUE;
}

/*
 * The segment of the motion that starts at frame @from (frame 0, or a frame that jumped from
 * the one before) and goes on up to its next jump or @to: each joint of m->unturn shifted by
 * the whole turns that bring frame @from nearest @ref (the seed, or the frame before), where
 * every frame of the segment stays within the limits. The same poses, the same steps between
 * them; but a solve never adds a turn that its seed did not have, whatever start a search
 * found the segment from (search_start() turns joints).
 */
static void
unturn_segment (Motion       *m,
                KmIkSolution *cur,
                guint         from,
                guint         to,
                const double *ref)
{
  guint end = from + 1;

  while (end < to && !motion_jumped (m, &cur[end - 1], &cur[end]))
    end++;
  for (guint d = 0; d < m->n_dof; d++)
    {
      double r = CLAMP (ref[d], m->lo[d], m->hi[d]);
      double k = nearbyint ((r - cur[from].q[d]) / (2 * G_PI));

      /* (A turn away from a limit that @ref is next to stays, as the solve keeps it.) */
      if (!m->unturn[d] || !isfinite (k) ||
          (r - m->lo[d] < KM_IK_CONT_JUMP && cur[from].q[d] > r + G_PI) ||
          (m->hi[d] - r < KM_IK_CONT_JUMP && cur[from].q[d] < r - G_PI))
        continue;
      /* The nearest turn first, then those between it and where it is; not for a tie (a
       * value half a turn off, give or take rounding). */
      for (; k != 0.0; k -= k > 0 ? 1.0 : -1.0)
        {
          double shift = 2 * G_PI * k;
          gboolean inside = fabs (cur[from].q[d] + shift - r) <
                            fabs (cur[from].q[d] - r) - KM_IK_TURN_GAIN;

          for (guint f = from; f < end && inside; f++)
            inside = cur[f].q[d] + shift >= m->lo[d] && cur[f].q[d] + shift <= m->hi[d];
          if (!inside)
            continue;
          for (guint f = from; f < end; f++)
            cur[f].q[d] += shift;
          break;
        }
    }
}

/* Frames @from .. @to − 1 of @cur are final (the motion is solved up to @valid): the
 * segments that start among them lose the whole turns they did not need (unturn_segment()). */
static void
unturn_final (Motion       *m,
              KmIkSolution *cur,
              guint         from,
              guint         to,
              guint         valid)
{
  for (guint f = from; f < to; f++)
    if (f == 0)
      unturn_segment (m, cur, f, valid, m->problem->seed);
    else if (motion_jumped (m, &cur[f - 1], &cur[f]))
      unturn_segment (m, cur, f, valid, cur[f - 1].q);
}

/* Hands frames @from .. @to − 1 of @cur to the caller; FALSE when cancelled meanwhile.
 * Frames before @known are final (@to ≤ @known). *@jumped (nullable) is set when one of
 * them jumped from the frame before. Each frame's KmIkSolution.jumped says whether it did,
 * or whether its step is a spike: at least KM_IK_SPIKE_STEP and more than KM_IK_SPIKE_RATIO
 * times the larger of the steps next to it (*@last_step, the step to frame @from − 1, or
 * negative for none; the step to the next frame where that is final), and *@last_step
 * becomes the step to frame @to − 1. So that a frame is judged as km_ik_measure_jumps()
 * judges it once the motion is whole, the caller hands over the last final frame only with
 * the motion's last frame (@to == @known only there). */
static gboolean
motion_emit (KmIkSolution  *cur,
             guint          from,
             guint          to,
             guint          known,
             KmIkSolution  *out,
             KmIkFrameFunc  frame_done,
             gpointer       user_data,
             gboolean      *jumped,
             const double  *jump_scale,
             double        *last_step,
             GCancellable  *cancellable,
             GError       **error)
{
  for (guint f = from; f < to; f++)
    {
      double step = f > 0 ? km_ik_jump_distance (cur[f].q, cur[f - 1].q, jump_scale,
                                                 cur[f].n_dof) : -1.0;
      double around = *last_step;

      if (f + 1 < known)
        around = MAX (around, km_ik_jump_distance (cur[f + 1].q, cur[f].q, jump_scale,
                                                   cur[f].n_dof));
      cur[f].jumped = km_ik_step_is_jump (step, around);
      *last_step = step;
      if (jumped != NULL && step > KM_IK_CONT_JUMP)
        *jumped = TRUE;
      /* The last two stay: the motion goes on from them (and the next frame handed over
       * measures its step from the last). */
      if (f > from && f + 1 < to)
        km_ik_solution_clear (&cur[f - 1]);
      if (out != NULL)
        km_ik_solution_copy_into (&cur[f], &out[f]);
      if (frame_done != NULL)
        frame_done (f, &cur[f], user_data);
      if (g_cancellable_set_error_if_cancelled (cancellable, error))
        return FALSE;
    }
  return TRUE;
}

/* How many frames of @motion jumped from the frame before (km_ik_jump_distance() with
 * @jump_scale above KM_IK_CONT_JUMP). */
static guint
count_jumps (const KmIkSolution *motion,
             guint               n_frames,
             const double       *jump_scale)
{
  guint jumps = 0;

  for (guint f = 1; f < n_frames; f++)
    jumps += km_ik_jump_distance (motion[f].q, motion[f - 1].q, jump_scale, motion[f].n_dof) >
             KM_IK_CONT_JUMP;
  return jumps;
}

/*
 * Whether the problem's seed is itself an answer to @target, frame 0 of a motion: finite,
 * within the limits, linked joints where their masters put them, and meeting the target
 * within the problem's tolerances (its orientation only where the problem weighs it). Then
 * @s (frame 0's solve, converged or not) becomes the seed itself, with its residuals: the
 * pose shown where a keyframe was set from it is the motion's first frame, even where a
 * solve from it would leave it (a singular or limited pose whose answer a search or a
 * route, drawn to a better-conditioned branch, would replace).
 */
static gboolean
seed_meets_first (const KmIkProblem *problem,
                  const KmTransform *target,
                  KmIkSolution      *s)
{
  g_autofree double *q = g_memdup2 (problem->seed, MAX (problem->n_dof, 1) * sizeof (double));
  KmIkProblem at = *problem;
  double pos_err, rot_err;
  gboolean orientation = isfinite (problem->orientation_weight) &&
                         problem->orientation_weight > 0.0;

  for (guint d = 0; d < problem->n_dof; d++)
    if (!isfinite (q[d]))
      return FALSE;
  km_skeleton_clamp (problem->skeleton, q);
  km_skeleton_apply_mimic (problem->skeleton, q);
  if (memcmp (q, problem->seed, problem->n_dof * sizeof (double)) != 0 ||
      !km_skeleton_within_limits (problem->skeleton, q, 0.0))
    return FALSE;
  at.target = *target;
  km_ik_measure (&at, q, &pos_err, &rot_err);
  if (!(pos_err <= problem->position_tolerance) ||
      (orientation && !(rot_err <= problem->orientation_tolerance)))
    return FALSE;
  memcpy (s->q, q, problem->n_dof * sizeof (double));
  s->pos_err = pos_err;
  s->rot_err = rot_err;
  s->converged = TRUE;
  s->within_limits = TRUE;
  return TRUE;
}

/* km_ik_solve_trajectory() without its choice: plain (@srs NULL) or routed along the
 * closed form @srs of the problem's arm, where a route that jumps @max_route_jumps times or
 * more is not followed: then *@routed is FALSE and nothing is solved. *@route_jumps
 * (nullable): the route's jumps, G_MAXUINT when there is none. With @stopped (nullable),
 * the solve stops at the first jump that is final (a frame handed over that jumped), when
 * every target is usable: *@stopped is then TRUE and only the frames before it are handed
 * over. */
static gboolean
solve_motion (const KmIkProblem *problem,
              const KmTransform *targets,
              guint              n_frames,
              KmIkSolution      *out,
              KmIkFrameFunc      frame_done,
              gpointer           user_data,
              const Progress    *progress,
              const KmIkSrs     *srs,
              guint              max_route_jumps,
              gboolean          *routed,
              guint             *route_jumps,
              gboolean          *stopped,
              GCancellable      *cancellable,
              GError           **error)
{
  Motion m = { 0 };
  const KmJoint *joints;
  KmIkSolution *bufs[4] = { NULL };
  KmIkSolution *cur, *alt, *best;
  guint n_dof, n_valid = 0, seg = 0, valid = 1, rounds = 0, emitted = 0, unturned = 0;
  gboolean ok, pending = FALSE, searched;
  Progress routing, tracking;  /* a routed pass's two parts: routing, then tracking */
  gboolean emitted_jump = FALSE;
  double emitted_step = -1.0;  /* the step to the last frame handed over (motion_emit()) */

  if (routed != NULL)
    *routed = FALSE;
  if (route_jumps != NULL)
    *route_jumps = G_MAXUINT;
  if (stopped != NULL)
    *stopped = FALSE;
  if (n_frames == 0)
    return TRUE;
  n_dof = problem->n_dof;
  /* Frames up to the first unusable target are solved; that one reports the error. */
  while (n_valid < n_frames && km_ik_target_is_finite (&targets[n_valid]))
    n_valid++;
  if (n_valid < n_frames)
    stopped = NULL;

  m.problem = problem;
  m.targets = targets;
  m.n_dof = n_dof;
  m.cancellable = cancellable;
  m.search_budget = (guint64) TRAJ_SEARCH_SOLVES * MAX (problem->max_iterations, 1) * n_valid;
  m.ahead = g_new (double, MAX (n_dof, 1) * (8 + TRAJ_MAX_CANDIDATES));
  m.start = m.ahead + MAX (n_dof, 1);
  m.lo = m.start + MAX (n_dof, 1);
  m.hi = m.lo + MAX (n_dof, 1);
  m.mid = m.hi + MAX (n_dof, 1);
  m.goal = m.mid + MAX (n_dof, 1);
  m.jump_scale = m.goal + MAX (n_dof, 1);
  m.tried = m.jump_scale + MAX (n_dof, 1);
  m.turns = g_new0 (gboolean, MAX (n_dof, 1) * 3);
  m.fit_radius = fit_radii (targets, n_frames, n_valid);
  m.on_path = m.turns + MAX (n_dof, 1);
  m.unturn = m.on_path + MAX (n_dof, 1);
  km_skeleton_get_dof_limits (problem->skeleton, m.lo, m.hi);
  km_ik_jump_scales (m.lo, m.hi, n_dof, m.jump_scale);
  km_skeleton_get_mid_range (problem->skeleton, m.mid);
  joints = km_skeleton_get_joints (problem->skeleton);
  if (problem->effector >= 0 &&
      (guint) problem->effector < km_skeleton_get_n_joints (problem->skeleton))
    for (int j = problem->effector; j >= 0 && j != problem->base; j = joints[j].parent)
      for (guint d = 0; d < joints[j].n_dof; d++)
        {
          int dof = joints[j].dof_index + (int) d;

          m.on_path[dof] = joints[j].mimic < 0;
          m.turns[dof] = m.on_path[dof] && joints[j].type == KM_JOINT_REVOLUTE &&
                         isfinite (m.lo[dof]) && isfinite (m.hi[dof]) &&
                         m.hi[dof] - m.lo[dof] > 2 * G_PI;
          m.unturn[dof] = m.on_path[dof] && joints[j].type == KM_JOINT_REVOLUTE &&
                          m.hi[dof] - m.lo[dof] >= 2 * G_PI;
        }
  /* (A turn of a master turns its followers by ratio · 2π: another pose.) */
  for (guint j = 0; j < km_skeleton_get_n_joints (problem->skeleton); j++)
    if (joints[j].mimic >= 0 && joints[joints[j].mimic].dof_index >= 0)
      for (guint d = 0; d < joints[joints[j].mimic].n_dof; d++)
        m.unturn[joints[joints[j].mimic].dof_index + (int) d] = FALSE;
  if (km_skeleton_has_mimic (problem->skeleton) && problem->effector >= 0 &&
      (guint) problem->effector < km_skeleton_get_n_joints (problem->skeleton))
    for (int j = problem->effector; j >= 0 && j != problem->base; j = joints[j].parent)
      if (joints[j].mimic >= 0 && joints[j].n_dof == 1 && joints[j].dof_index >= 0)
        {
          const KmJoint *mj = &joints[joints[j].mimic];
          gboolean ancestor = FALSE;

          /* The master of a follower on the path moves too (see km-ik.c), unless it is an
           * ancestor of the effector: on the path already, or fixed above the base. */
          for (int a = problem->effector; a >= 0 && !ancestor; a = joints[a].parent)
            ancestor = a == joints[j].mimic;
          if (!ancestor && mj->n_dof == 1 && mj->mimic < 0 && mj->dof_index >= 0)
            m.on_path[mj->dof_index] = TRUE;
        }
  for (guint i = 0; i < G_N_ELEMENTS (bufs); i++)
    bufs[i] = g_new0 (KmIkSolution, MAX (n_valid, 1));
  cur = bufs[0], alt = bufs[1], best = bufs[2], m.fb = bufs[3];

  /* Frame 0 starts from the problem's seed, not from a motion (unless the problem says so):
   * it gets the best answer wherever it is. */
  ok = n_valid == 0 ||
       km_ik_solve_seeded (problem, &targets[0], problem->seed, problem->random_seed,
                  problem->continuous, m.fit_radius[0], &cur[0], cancellable, error);
  /* A seed that meets frame 0's target is frame 0, and stays. */
  m.keep_first = ok && n_valid > 0 && seed_meets_first (problem, &targets[0], &cur[0]);
  /* An SRS arm: routed through its whole solution set, frame 0 from the route's start
   * (unless it is the seed, kept: the route then starts from it). */
  if (ok && srs != NULL && n_valid >= 2)
    {
      if (progress != NULL)
        {
          routing = tracking = *progress;
          routing.to = tracking.from =
            progress->from + (progress->to - progress->from) * ROUTE_PROGRESS_SHARE;
          m.routing = &routing;
          progress = &tracking;
        }
      ok = motion_route (&m, srs, n_valid, &cur[0], max_route_jumps);
      progress_report (m.routing, 1.0);
      if (route_jumps != NULL)
        *route_jumps = m.route_jumps;
      if (!ok)
        g_cancellable_set_error_if_cancelled (cancellable, error);
      else if (m.route != NULL && !m.keep_first)
        ok = km_ik_solve_seeded (problem, &targets[0], m.route, problem->random_seed, TRUE,
                                 m.fit_radius[0], &cur[0],
                        cancellable, error);
      if (routed != NULL)
        *routed = ok && m.route != NULL;
      if (ok && m.route == NULL)
        goto done; /* nothing to gain over the plain track */
    }
  while (ok && n_valid > 0)
    {
      progress_report (progress, (double) valid / n_valid);
      if (!pending)
        {
          if (valid >= n_valid)
            break;
          ok = motion_frame (&m, valid, valid >= 2 ? cur[valid - 2].q : NULL, &cur[valid - 1],
                             &cur[valid], error);
          if (!ok)
            break;
          pending = motion_jumped (&m, &cur[valid - 1], &cur[valid]);
          valid++;
        }
      if (pending)
        {
          guint k = valid - 1;

          searched = FALSE;
          /* A jump next to a target the chain misses while the segment's start met its
           * own stands unsearched (see above TRAJ_WINDOW), as does any once the searches
           * have spent the motion's budget. */
          if ((cur[seg].converged && (!cur[k - 1].converged || !cur[k].converged)) ||
              m.search_work >= m.search_budget)
            goto stands;
          if (k - seg <= TRAJ_WINDOW && rounds < TRAJ_MAX_ROUNDS)
            {
              gboolean forced;

              m.searching = TRUE;
              ok = jump_forced (&m, k, cur, &forced, error);
              m.searching = FALSE;
              if (!ok)
                break;
              if (forced)
                goto stands;
            }
          if (k - seg <= TRAJ_WINDOW && rounds < TRAJ_MAX_ROUNDS)
            {
              guint reach;
              gboolean jumped;

              rounds++;
              searched = TRUE;
              m.searching = TRUE;
              ok = branch_search (&m, cur, &alt, &best, seg, k, MIN (n_valid, k + TRAJ_WINDOW),
                                  rounds == 1, &reach, &jumped, error);
              m.searching = FALSE;
              if (!ok)
                break;
              if (reach > k)
                {
                  valid = jumped ? reach + 1 : reach;
                  pending = jumped;
                  continue;
                }
            }
          /* No start gets further: the jump stands, a new segment begins, with the track
           * through frame k that goes furthest. */
        stands:
          if (searched && m.fb_stop > k)
            {
              guint last = m.fb_jumped ? m.fb_stop : m.fb_stop - 1;

              for (guint f = k; f <= last; f++)
                km_ik_solution_copy_into (&m.fb[f], &cur[f]);
              valid = last + 1;
            }
          seg = k;
          rounds = 0;
          pending = searched && m.fb_stop > k && m.fb_jumped;
        }
      /* Frames before the segment are final, and all of them once no search can reach back
       * to the segment's start. */
      {
        guint final = valid - seg > TRAJ_WINDOW ? valid : seg;

        if (final > unturned)
          {
            unturn_final (&m, cur, unturned, final, valid);
            unturned = final;
          }
        /* The last final frame waits for the step after it (its jump is judged against
         * the steps on both sides). */
        if (final > emitted + 1)
          {
            ok = motion_emit (cur, emitted, final - 1, final, out, frame_done, user_data,
                              stopped != NULL ? &emitted_jump : NULL, m.jump_scale,
                              &emitted_step, cancellable, error);
            emitted = final - 1;
            if (ok && emitted_jump)
              {
                *stopped = TRUE;
                goto done;
              }
          }
      }
    }
  if (ok)
    unturn_final (&m, cur, unturned, n_valid, n_valid);
  if (ok)
    ok = motion_emit (cur, emitted, n_valid, n_valid, out, frame_done, user_data, NULL,
                      m.jump_scale, &emitted_step, cancellable, error);
  if (ok && n_valid < n_frames)
    {
      /* Reports the unusable target (and leaves the clamped seed in its frame). */
      KmIkSolution *s = out != NULL ? &out[n_valid] : &m.plain;

      ok = km_ik_solve_seeded (problem, &targets[n_valid],
                      n_valid > 0 ? (out != NULL ? out[n_valid - 1].q : problem->seed)
                                  : problem->seed,
                      problem->random_seed + n_valid, n_valid > 0 || problem->continuous,
                      m.fit_radius[n_valid], s,
                      cancellable, error);
    }
  else if (!ok && emitted == 0 && valid == 1 && out != NULL && cur[0].q != NULL &&
           !g_cancellable_is_cancelled (cancellable))
    {
      /* An unusable problem: frame 0 holds the clamped seed, as km_ik_solve() leaves it. */
      km_ik_solution_copy_into (&cur[0], &out[0]);
    }

done:
  for (guint i = 0; i < G_N_ELEMENTS (bufs); i++)
    {
      for (guint f = 0; f < MAX (n_valid, 1); f++)
        km_ik_solution_clear (&bufs[i][f]);
      g_free (bufs[i]);
    }
  km_ik_solution_clear (&m.plain);
  g_free (m.ahead);
  g_free (m.turns);
  g_free (m.fit_radius);
  g_free (m.route);
  g_free (m.route_exit);
  return ok;
}

/**
 * km_ik_solve_trajectory:
 * @problem: the problem; its target is ignored, its seed starts frame 0
 * @targets: (array length=n_frames): the effector's world pose for every frame
 * @out: (nullable) (array length=n_frames): zero-filled or initialised solutions, one per
 *   frame; %NULL when @frame_done consumes the frames
 * @frame_done: (nullable) (scope call): called for every frame in order, on this thread
 *
 * Solves the frames as one continuous motion. Frame 0 starts from problem->seed as
 * km_ik_solve() would (continuous only when the problem says so); where the seed itself
 * meets frame 0's target within the problem's tolerances and lies within the limits (a
 * keyframe set from the pose shown), frame 0 is the seed, to the bit, and stays: every
 * search and route goes on from it, and where the motion cannot follow on from it (a
 * singular pose that the targets leave on another configuration of its self-motion), the
 * jump after it stands, reported (KmIkSolution.jumped). Frame k is warm-started
 * from the answer to frame k − 1 with problem->continuous set, which keeps the motion on one
 * branch, after an extrapolated seed (momentum from frames k − 2 and k − 1, see
 * motion_frame). Where the motion would jump (a DOF moving more than KM_IK_CONT_JUMP between
 * frames), a branch search looks for a start at the segment's first frame whose track goes
 * further without a jump (see TRAJ_WINDOW above): so frame 0 keeps the seed's answer
 * whenever that can be tracked without a jump, and a jump remains only where no start tried
 * avoids it. A revolute joint with a turn or more of range (a continuous one too) keeps, of
 * the tracks whole turns apart, the one that starts nearest the seed (frame 0) or the frame
 * before a jump, where the limits allow: no turn that a search's start added. Frames are final, and reach @out and @frame_done in order, once no search can
 * revise them any more (at most TRAJ_WINDOW frames behind the track, all at the end for
 * shorter motions). Frame k uses random seed problem->random_seed + k for its restarts.
 * Every frame handed over says whether it jumped from the one before (KmIkSolution.jumped:
 * beyond KM_IK_CONT_JUMP, or a spike, much further than the steps around it, see
 * KM_IK_SPIKE_RATIO). Deterministic. Costs the same as frame-by-frame tracking where no frame
 * jumps; a search costs up to TRAJ_MAX_CANDIDATES tracks of a few thousand frames, all searches
 * together at most the iterations of TRAJ_SEARCH_SOLVES whole solves per frame. Holds four
 * solutions per frame while it runs.
 *
 * A spherical-revolute-spherical arm (see km-ik-srs.c) is tracked as above first, all frames
 * held back; where that leaves a jump and the route through the arm's whole solution set
 * (see ROUTE_ZONE_ANGLE) jumps fewer times, the motion is solved again along that route,
 * and the one with fewer jumps is handed over, after the whole motion is solved
 * (km_ik_solve_trajectory_full() reports the progress meanwhile; a caller that shows the
 * motion as it comes uses km_ik_solve_trajectory_stream(), which hands the plain track over
 * at once and revises it where the routed one wins). The plain track is only
 * solved up to its first jump that is final unless the routed one jumps too (the outcome is
 * the same). The route's frames are prepared on as many threads as there are processors (up
 * to 8); the result does not depend on how many.
 *
 * Returns: %FALSE on an invalid problem or target (the frames before it are handed over) or
 *   when cancelled (G_IO_ERROR_CANCELLED; the frames handed over so far stand)
 */
gboolean
km_ik_solve_trajectory (const KmIkProblem *problem,
                        const KmTransform *targets,
                        guint              n_frames,
                        KmIkSolution      *out,
                        KmIkFrameFunc      frame_done,
                        gpointer           user_data,
                        GCancellable      *cancellable,
                        GError           **error)
{
  return km_ik_solve_trajectory_full (problem, targets, n_frames, out, frame_done, NULL,
                                      user_data, cancellable, error);
}

/* Where a solve that streams its frames (km_ik_solve_trajectory_stream()) hands them
 * over: each frame as handed over (@shown, rows of n_dof values, pos_err, rot_err,
 * converged, jumped), so that one that comes again unchanged is not handed over twice and
 * one that changed revises the frames from there on. */
typedef struct
{
  KmIkFrameFunc   frame_done;
  KmIkReviseFunc  revise;
  gpointer        user_data;
  guint           n_dof;
  double         *shown;
  guint           n_shown;
} Stream;

static gboolean
stream_same (const double       *row,
             const KmIkSolution *solution)
{
  double tail[4] = { solution->pos_err, solution->rot_err, solution->converged ? 1.0 : 0.0,
                     solution->jumped ? 1.0 : 0.0 };

  return memcmp (row, solution->q, solution->n_dof * sizeof (double)) == 0 &&
         memcmp (row + solution->n_dof, tail, sizeof tail) == 0;
}

/* A KmIkFrameFunc: frames come in order from 0 (again, after a pass that is not final). */
static void
stream_frame_cb (guint               frame,
                 const KmIkSolution *solution,
                 gpointer            user_data)
{
  Stream *s = user_data;
  gsize stride = s->n_dof + 4;
  double *row;

  if (frame < s->n_shown)
    {
      if (stream_same (&s->shown[frame * stride], solution))
        return;
      s->n_shown = frame;
      s->revise (frame, s->user_data);
    }
  g_return_if_fail (frame == s->n_shown);
  row = &s->shown[frame * stride];
  memcpy (row, solution->q, s->n_dof * sizeof (double));
  row[s->n_dof] = solution->pos_err;
  row[s->n_dof + 1] = solution->rot_err;
  row[s->n_dof + 2] = solution->converged ? 1.0 : 0.0;
  row[s->n_dof + 3] = solution->jumped ? 1.0 : 0.0;
  s->n_shown++;
  s->frame_done (frame, solution, s->user_data);
}

/*
 * The trajectory solve behind km_ik_solve_trajectory_full() (@revise NULL: every frame
 * handed over is final) and km_ik_solve_trajectory_stream() (@revise set: an SRS arm's plain
 * track is handed over as it comes, and revised where the motion chosen differs).
 */
static gboolean
solve_trajectory (const KmIkProblem *problem,
                  const KmTransform *targets,
                  guint              n_frames,
                  KmIkSolution      *out,
                  KmIkFrameFunc      frame_done,
                  KmIkReviseFunc     revise,
                  KmIkProgressFunc   progress,
                  gpointer           user_data,
                  GCancellable      *cancellable,
                  GError           **error)
{
  g_autoptr (KmIkSrs) srs = NULL;
  g_autofree double *jump_scale = NULL;  /* then the limits, for count_jumps() */
  KmIkSolution *motions[2] = { NULL };
  guint jumps[2] = { 0, 0 }, route_jumps = G_MAXUINT, pick = 0;
  gboolean ok = TRUE, stopped = FALSE, routed = FALSE;
  double shown = 0.0;
  Progress passes[3] = {
    { progress, user_data, 0.0, 1.0, &shown },
    { progress, user_data, 1.0, 1.0, &shown },
    { progress, user_data, 1.0, 1.0, &shown },
  };
  Stream stream = { frame_done, revise, user_data, 0, NULL, 0 };
  /* The plain passes' frames: none before the end, or streamed (provisional). */
  KmIkFrameFunc plain_done = NULL;
  gpointer plain_data = NULL;

  g_return_val_if_fail (problem != NULL, FALSE);
  g_return_val_if_fail (problem->skeleton != NULL, FALSE);
  g_return_val_if_fail (targets != NULL || n_frames == 0, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  stream.n_dof = problem->n_dof;

  if (n_frames >= 2)
    srs = km_ik_srs_new (problem);
  if (srs == NULL)
    return solve_motion (problem, targets, n_frames, out, frame_done, user_data, &passes[0],
                         NULL, 0, NULL, NULL, NULL, cancellable, error);

  if (revise != NULL && frame_done != NULL)
    {
      stream.shown = g_new (double, (gsize) n_frames * (problem->n_dof + 4));
      plain_done = stream_frame_cb;
      plain_data = &stream;
      frame_done = stream_frame_cb;
      user_data = &stream;
    }

  /*
   * The plain track; where it jumps, the routed one when its route jumps fewer times, and
   * the one with fewer jumps wins (the plain one on a tie). The plain track only needs to go
   * as far as its first jump at first (*stopped: it has one, that much is final): the routed
   * one is then solved whatever its route's jumps, and where neither jumps it wins outright;
   * otherwise the plain track is solved whole after all (PLAIN_RERUN_SHARE), to count its
   * jumps. The outcome is the same as with the plain track solved whole first. Streamed,
   * the plain passes hand their frames over as they come (the rerun only those past the
   * first pass's), and the frames of the motion chosen that differ from them follow.
   */
  jump_scale = g_new (double, 3 * MAX (problem->n_dof, 1));
  km_skeleton_get_dof_limits (problem->skeleton, jump_scale + problem->n_dof,
                              jump_scale + 2 * problem->n_dof);
  km_ik_jump_scales (jump_scale + problem->n_dof, jump_scale + 2 * problem->n_dof,
                     problem->n_dof, jump_scale);
  passes[0].to = passes[1].from = PLAIN_PROGRESS_SHARE;
  passes[1].to = passes[2].from = 1.0 - PLAIN_RERUN_SHARE;
  motions[0] = g_new0 (KmIkSolution, n_frames);
  ok = solve_motion (problem, targets, n_frames, motions[0], plain_done, plain_data,
                     &passes[0], NULL, 0, NULL, NULL, &stopped, cancellable, NULL);
  /* Stopped: at least one jump, how many is not known yet. */
  jumps[0] = stopped ? G_MAXUINT : ok ? count_jumps (motions[0], n_frames, jump_scale) : 0;
  if (ok && (stopped || jumps[0] > 0))
    {
      motions[1] = g_new0 (KmIkSolution, n_frames);
      ok = solve_motion (problem, targets, n_frames, motions[1], NULL, NULL, &passes[1], srs,
                         stopped ? G_MAXUINT : jumps[0], &routed, &route_jumps, NULL,
                         cancellable, NULL);
      if (ok && routed)
        jumps[1] = count_jumps (motions[1], n_frames, jump_scale);
      if (ok && stopped && !(routed && route_jumps == 0 && jumps[1] == 0))
        {
          /* The plain track's jumps decide. */
          for (guint f = 0; f < n_frames; f++)
            km_ik_solution_clear (&motions[0][f]);
          ok = solve_motion (problem, targets, n_frames, motions[0], plain_done, plain_data,
                             &passes[2], NULL, 0, NULL, NULL, NULL, cancellable, NULL);
          if (ok)
            jumps[0] = count_jumps (motions[0], n_frames, jump_scale);
          routed = routed && route_jumps < jumps[0];
        }
      if (ok && routed && jumps[1] < jumps[0])
        pick = 1;
    }
  /* The work is done (the rest of the progress is the plain track's rerun that was not
   * needed, if any): 1, then the frames. */
  if (ok)
    progress_report (&passes[2], 1.0);
  /* Streamed, the motion goes over whole even when cancelled meanwhile (it is solved,
   * only handed over): cut short after a revision, it would leave the caller the routed
   * frames up to there and the plain track's after them, a jump neither motion has. */
  if (ok)
    for (guint f = 0; f < n_frames && ok; f++)
      {
        if (out != NULL)
          km_ik_solution_copy_into (&motions[pick][f], &out[f]);
        if (frame_done != NULL)
          frame_done (f, &motions[pick][f], user_data);
        ok = revise != NULL || !g_cancellable_set_error_if_cancelled (cancellable, error);
      }
  if (ok && revise != NULL)
    ok = !g_cancellable_set_error_if_cancelled (cancellable, error);
  for (guint r = 0; r < 2; r++)
    if (motions[r] != NULL)
      {
        for (guint f = 0; f < n_frames; f++)
          km_ik_solution_clear (&motions[r][f]);
        g_free (motions[r]);
      }
  if (!ok && (error == NULL || *error == NULL))
    {
      /* An unusable target or a cancellation on the way: the plain solve reports it as
       * usual (streamed, the frames it hands over again unchanged are not repeated). */
      ok = solve_motion (problem, targets, n_frames, out, frame_done, user_data, NULL, NULL, 0,
                         NULL, NULL, NULL, cancellable, error);
    }
  g_free (stream.shown);
  return ok;
}

/**
 * km_ik_solve_trajectory_full:
 * @progress: (nullable) (scope call): called on this thread as the solve advances, with the
 *   fraction of the work done (0 … 1, rising, 1 last)
 * @user_data: data for @frame_done and @progress
 *
 * km_ik_solve_trajectory() that also reports its progress. Frames may be held back until
 * the end (see there); the progress moves all the same, at most about 500 times a solve.
 *
 * Returns: as km_ik_solve_trajectory()
 */
gboolean
km_ik_solve_trajectory_full (const KmIkProblem *problem,
                             const KmTransform *targets,
                             guint              n_frames,
                             KmIkSolution      *out,
                             KmIkFrameFunc      frame_done,
                             KmIkProgressFunc   progress,
                             gpointer           user_data,
                             GCancellable      *cancellable,
                             GError           **error)
{
  return solve_trajectory (problem, targets, n_frames, out, frame_done, NULL, progress,
                           user_data, cancellable, error);
}

/*
 * km_ik_solve_trajectory_stream:
 * @frame_done: (scope call): called on this thread for every frame handed over, in order
 * @revise: (scope call): called on this thread before frames handed over already come
 *   again: the frames from @first_frame on are replaced, and come again in order
 * @progress: (nullable) (scope call): as for km_ik_solve_trajectory_full()
 *
 * km_ik_solve_trajectory_full() for a caller that shows the motion as it is solved. Where
 * that holds the frames back until the end (a spherical-revolute-spherical arm, whose plain
 * track may lose to the routed one), this hands the plain track's frames over as soon as
 * they are final within the plain track (provisional: valid answers of the frame, within
 * the limits), and where the motion chosen at the end differs, calls @revise with the first
 * frame that differs and hands the motion's frames over again from there. A frame that
 * would come again with the same values, residuals, convergence and jump is not handed over
 * again. Once it returns %TRUE, the last frame handed over for each frame index is, to the
 * bit, the frame km_ik_solve_trajectory_full() hands over for it. Other arms: the same as
 * km_ik_solve_trajectory_full() (@revise is never called).
 *
 * Returns: as km_ik_solve_trajectory(); cancelled, the frames handed over so far stand
 */
gboolean
km_ik_solve_trajectory_stream (const KmIkProblem *problem,
                               const KmTransform *targets,
                               guint              n_frames,
                               KmIkFrameFunc      frame_done,
                               KmIkReviseFunc     revise,
                               KmIkProgressFunc   progress,
                               gpointer           user_data,
                               GCancellable      *cancellable,
                               GError           **error)
{
  g_return_val_if_fail (frame_done != NULL && revise != NULL, FALSE);

  return solve_trajectory (problem, targets, n_frames, NULL, frame_done, revise, progress,
                           user_data, cancellable, error);
}
