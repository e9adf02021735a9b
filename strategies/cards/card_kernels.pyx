# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""A rule card's decisions at every roll of many positions, compiled: the exact
evaluator's decision tables of a card (:meth:`CardStrategy.decision_table`).

A card's rule holds when each of its conditions holds. The conditions on the score sheet,
the upper bonus, the turn and the rerolls left are the same at every roll of a position:
the caller gives, per position (and per reroll left), the set of rules whose such
conditions hold, as bits of ``uint64`` words. The conditions on the roll — the dice, the
points a box would get, whether the upper box of the most common face is open, and for a
box rule whether its box takes the roll — are found here once per run of positions of one
used-mask and flag. A decision is then the first rule in both sets: one ``and`` per word.
Runs are filled in parallel; each writes only its own rows, so the tables do not depend on
the number of threads.
"""

import numpy as np

from cython.parallel cimport parallel, prange
from libc.stdint cimport int8_t, int16_t, int64_t, uint8_t, uint64_t
from libc.stdlib cimport free, malloc

from yahtzee_sim._core.bundle cimport RulesView, view_of
from yahtzee_sim._core.rules cimport Rules, box_legal_points, joker_case
from strategies.position_tables cimport check_positions, run_starts

#: Kinds of the roll conditions of a rule (``term_kind``).
cdef enum:
    TERM_DICE = 0  # dice_table[roll, a]
    TERM_MIXED = 1  # the upper box of the most common face (box_table's last column) is open
    TERM_POINTS = 2  # box a would get at least b points
    MAX_CHUNKS = 64  # scratch buffers are allocated once per chunk of runs


cdef struct Card:
    const Rules* kr
    const uint8_t* dice_table  # n_rolls x n_dice_conds
    int64_t n_dice_conds
    const int64_t* keep_table  # n_rolls x n_keep_moves: keep index of each keep move
    int64_t n_keep_moves
    const int64_t* box_table  # n_rolls x n_box_moves: box of each box move
    int64_t n_box_moves
    # the keep rules' roll conditions (CSR over rules) and moves
    const int64_t* keep_ptr
    const int64_t* keep_move
    int64_t n_keep_rules
    int64_t keep_fallback
    # the box rules'
    const int64_t* box_ptr
    const int64_t* box_move
    int64_t n_box_rules
    # every term: kind, a, b
    const int64_t* term_kind
    const int64_t* term_a
    const int64_t* term_b
    # the rules whose other conditions hold, per position
    const uint64_t* keep_state  # n x n_layers x keep_words
    const uint64_t* box_state  # n x box_words
    int64_t n_layers
    int64_t keep_words
    int64_t box_words


cdef inline bint term_holds(
    const Card* k, int64_t t, int64_t roll, int64_t used, const int16_t* points
) noexcept nogil:
    """Whether roll condition ``t`` holds for ``roll`` (``points``: its legal points)."""
    cdef int64_t kind = k.term_kind[t]
    cdef int64_t box
    if kind == TERM_DICE:
        return k.dice_table[roll * k.n_dice_conds + k.term_a[t]] != 0
    if kind == TERM_MIXED:
        box = k.box_table[roll * k.n_box_moves + k.n_box_moves - 1]
        return ((used >> box) & 1) == 0
    return points[k.term_a[t]] >= k.term_b[t]


cdef inline void roll_masks(
    const Card* k, int64_t roll, int64_t used, const int16_t* points, uint64_t* keep_mask,
    uint64_t* box_mask,
) noexcept nogil:
    """The keep and box rules whose roll conditions hold for ``roll`` (a box rule's box
    must take the roll), as bits."""
    cdef int64_t w, rule, t, box
    cdef bint ok
    for w in range(k.keep_words):
        keep_mask[w] = 0
    for w in range(k.box_words):
        box_mask[w] = 0
    for rule in range(k.n_keep_rules):
        ok = True
        for t in range(k.keep_ptr[rule], k.keep_ptr[rule + 1]):
            if not term_holds(k, t, roll, used, points):
                ok = False
                break
        if ok:
            keep_mask[rule >> 6] |= (<uint64_t>1) << (rule & 63)
    for rule in range(k.n_box_rules):
        box = k.box_table[roll * k.n_box_moves + k.box_move[rule]]
        ok = points[box] >= 0
        t = k.box_ptr[rule]
        while ok and t < k.box_ptr[rule + 1]:
            ok = term_holds(k, t, roll, used, points)
            t += 1
        if ok:
            box_mask[rule >> 6] |= (<uint64_t>1) << (rule & 63)


cdef inline int64_t first_rule(const uint64_t* a, const uint64_t* b, int64_t words) noexcept nogil:
    """The first rule in both bit sets ``a`` and ``b``; -1 if none."""
    cdef int64_t w, bit
    cdef uint64_t both
    for w in range(words):
        both = a[w] & b[w]
        if both:
            bit = 0
            while not (both & 1):
                both >>= 1
                bit += 1
            return w * 64 + bit
    return -1


cdef inline int64_t most_points(const int16_t* points, int64_t n_boxes) noexcept nogil:
    """The box with the most points (the first on the card if equal)."""
    cdef int64_t c, best = 0
    for c in range(1, n_boxes):
        if points[c] > points[best]:
            best = c
    return best


cdef void fill_run(
    const Card* k, const int64_t* pos, int64_t lo, int64_t hi, int16_t* keep, int8_t* cat,
    int16_t* points, uint64_t* keep_masks, uint64_t* box_masks,
) noexcept nogil:
    """Positions ``lo .. hi - 1`` (one used-mask and flag) into their rows of ``keep``
    (``n_layers`` rows of ``n_rolls`` each) and ``cat``."""
    cdef const Rules* kr = k.kr
    cdef int64_t n_rolls = kr.n_rolls
    cdef int64_t C = kr.n_boxes
    cdef int64_t used = pos[3 * lo]
    cdef int64_t i, r, c, case, layer, rule, move
    for r in range(n_rolls):
        case = joker_case(kr, r, used, pos[3 * lo + 2])
        for c in range(C):
            points[r * C + c] = <int16_t>box_legal_points(kr, case, r, used, c)
        roll_masks(k, r, used, points + r * C, keep_masks + r * k.keep_words,
                   box_masks + r * k.box_words)
    for i in range(lo, hi):
        for layer in range(k.n_layers):
            for r in range(n_rolls):
                rule = first_rule(
                    keep_masks + r * k.keep_words,
                    k.keep_state + (i * k.n_layers + layer) * k.keep_words,
                    k.keep_words,
                )
                move = k.keep_move[rule] if rule >= 0 else k.keep_fallback
                keep[(i * k.n_layers + layer) * n_rolls + r] = <int16_t>(
                    k.keep_table[r * k.n_keep_moves + move]
                )
        for r in range(n_rolls):
            rule = first_rule(box_masks + r * k.box_words, k.box_state + i * k.box_words,
                              k.box_words)
            if rule >= 0:
                cat[i * n_rolls + r] = <int8_t>k.box_table[r * k.n_box_moves + k.box_move[rule]]
            else:
                cat[i * n_rolls + r] = <int8_t>most_points(points + r * C, C)


cdef bint fill_chunk(
    const Card* k, const int64_t* pos, const int64_t* starts, int64_t n_runs, int16_t* keep,
    int8_t* cat, int64_t chunk, int64_t n_chunks,
) noexcept nogil:
    """The runs ``chunk, chunk + n_chunks, ...`` (:func:`fill_run`); False if out of memory."""
    cdef int64_t n_rolls = k.kr.n_rolls
    cdef int16_t* points = <int16_t*>malloc(n_rolls * k.kr.n_boxes * sizeof(int16_t))
    cdef uint64_t* keep_masks = <uint64_t*>malloc(n_rolls * k.keep_words * sizeof(uint64_t))
    cdef uint64_t* box_masks = <uint64_t*>malloc(n_rolls * k.box_words * sizeof(uint64_t))
    cdef bint ok = points != NULL and keep_masks != NULL and box_masks != NULL
    cdef int64_t a = chunk
    while ok and a < n_runs:
        fill_run(k, pos, starts[a], starts[a + 1], keep, cat, points, keep_masks, box_masks)
        a += n_chunks
    free(points)
    free(keep_masks)
    free(box_masks)
    return ok


cdef check_csr(str name, const int64_t[::1] ptr, int64_t n_rules, int64_t n_terms):
    """Refuse rule pointers that are not offsets into ``n_terms`` terms, in order."""
    if ptr.shape[0] != n_rules + 1 or ptr[0] < 0 or ptr[n_rules] > n_terms:
        raise ValueError(f"{name} must hold {n_rules + 1} offsets into the {n_terms} terms")
    if n_rules and np.any(np.diff(np.asarray(ptr)) < 0):
        raise ValueError(f"{name} must not decrease")


def card_tables(
    kr,
    const uint8_t[:, ::1] dice_table,
    const int64_t[:, ::1] keep_table,
    const int64_t[:, ::1] box_table,
    const int64_t[::1] keep_ptr,
    const int64_t[::1] keep_move,
    int64_t keep_fallback,
    const int64_t[::1] box_ptr,
    const int64_t[::1] box_move,
    const int64_t[:, ::1] terms,
    const int64_t[:, ::1] pos,
    const uint64_t[:, :, ::1] keep_state,
    const uint64_t[:, ::1] box_state,
    int16_t[:, :, ::1] keep,
    int8_t[:, ::1] cat,
    int n_threads=1,
):
    """The keep index and the box of every roll at positions ``pos`` for a card's rules,
    in parallel over runs of one used-mask and flag.

    Parameters
    ----------
    kr : KernelRules
        The rules (:func:`~yahtzee_sim._kernels.scoring.kernel_rules`).
    dice_table : ndarray (n_rolls, k) uint8
        The dice conditions of each roll.
    keep_table, box_table : ndarray (n_rolls, moves) int64
        The keep index and the box each move makes of each roll (the box table's last
        column: the upper box of the most common face, when a rule reads it).
    keep_ptr, keep_move, keep_fallback : int64
        The keep rules: rule ``i``'s roll conditions are ``terms[keep_ptr[i]:keep_ptr[i+1]]``,
        its move ``keep_move[i]``; the move where no rule holds.
    box_ptr, box_move : int64
        The box rules, alike; a box rule holds only where its box takes the roll.
    terms : ndarray (t, 3) int64
        Each roll condition: kind (0 dice ``a``, 1 the upper box of the most common face
        open, 2 box ``a`` gets at least ``b`` points), ``a``, ``b``.
    pos : ndarray (n, 3) int64
        Positions ``(used, upper, flag)``, those of one used-mask and flag next to each other.
    keep_state : ndarray (n, layers, keep words) uint64
        The keep rules whose other conditions hold at each position with ``layer + 1``
        rerolls left, as bits.
    box_state : ndarray (n, box words) uint64
        The box rules whose other conditions hold at each position.
    keep : ndarray (n, layers, n_rolls) int16
        Written: each roll's keep index with ``layer + 1`` rerolls left.
    cat : ndarray (n, n_rolls) int8
        Written: each roll's box.
    n_threads : int
        Threads to run on (the tables do not depend on it).

    Returns
    -------
    None
    """
    cdef RulesView view = view_of(kr)
    cdef const Rules* r = &view.rules
    cdef Card k
    cdef int64_t n = pos.shape[0]
    cdef int64_t[::1] starts = np.zeros(n + 1, dtype=np.int64)
    cdef int64_t n_runs, chunk, n_chunks
    cdef int failed = 0
    n_rules_k, n_rules_b, n_terms = keep_move.shape[0], box_move.shape[0], terms.shape[0]
    check_positions(r, np.asarray(pos))
    if min(dice_table.shape[0], keep_table.shape[0], box_table.shape[0]) != r.n_rolls:
        raise ValueError(f"dice_table, keep_table and box_table must have {r.n_rolls} rows")
    check_csr("keep_ptr", keep_ptr, n_rules_k, n_terms)
    check_csr("box_ptr", box_ptr, n_rules_b, n_terms)
    if terms.shape[1] != 3:
        raise ValueError("terms must have 3 columns (kind, a, b)")
    t = np.asarray(terms)
    dice, mixed, points = t[:, 0] == TERM_DICE, t[:, 0] == TERM_MIXED, t[:, 0] == TERM_POINTS
    if not (dice | mixed | points).all():
        raise ValueError("terms: kinds are 0 (dice), 1 (most common face's box) or 2 (points)")
    if (t[dice, 1] < 0).any() or (t[dice, 1] >= dice_table.shape[1]).any():
        raise ValueError(f"terms: dice conditions are columns 0..{dice_table.shape[1] - 1}")
    if (t[points, 1] < 0).any() or (t[points, 1] >= r.n_boxes).any():
        raise ValueError(f"terms: points conditions name boxes 0..{r.n_boxes - 1}")
    moves = np.concatenate([np.asarray(keep_move), [keep_fallback]])
    if moves.min() < 0 or moves.max() >= keep_table.shape[1]:
        raise ValueError(f"keep moves must be columns 0..{keep_table.shape[1] - 1}")
    box_moves = np.asarray(box_move)
    if n_rules_b and (box_moves.min() < 0 or box_moves.max() >= box_table.shape[1]):
        raise ValueError(f"box moves must be columns 0..{box_table.shape[1] - 1}")
    if np.asarray(box_table).min() < 0 or np.asarray(box_table).max() >= r.n_boxes:
        raise ValueError(f"box_table must hold boxes 0..{r.n_boxes - 1}")
    kw, bw = keep_state.shape[2], box_state.shape[1]
    if kw * 64 < n_rules_k or bw * 64 < n_rules_b or kw < 1 or bw < 1:
        raise ValueError("keep_state and box_state must hold a bit per rule (a word at least)")
    if {keep_state.shape[0], box_state.shape[0], keep.shape[0], cat.shape[0]} != {n}:
        raise ValueError(f"keep_state, box_state, keep and cat must have {n} rows")
    if (keep.shape[1], keep.shape[2], cat.shape[1]) != (keep_state.shape[1], r.n_rolls, r.n_rolls):
        raise ValueError(f"keep must be (n, layers, {r.n_rolls}) and cat (n, {r.n_rolls})")
    if n == 0:
        return
    k.kr = r
    k.dice_table = &dice_table[0, 0] if dice_table.shape[1] else NULL
    k.n_dice_conds = dice_table.shape[1]
    k.keep_table, k.n_keep_moves = &keep_table[0, 0], keep_table.shape[1]
    k.box_table, k.n_box_moves = &box_table[0, 0], box_table.shape[1]
    k.keep_ptr, k.n_keep_rules, k.keep_fallback = &keep_ptr[0], n_rules_k, keep_fallback
    k.keep_move = &keep_move[0] if n_rules_k else NULL
    k.box_ptr, k.n_box_rules = &box_ptr[0], n_rules_b
    k.box_move = &box_move[0] if n_rules_b else NULL
    k.keep_state = &keep_state[0, 0, 0] if keep_state.shape[1] else NULL
    k.box_state = &box_state[0, 0]
    k.n_layers, k.keep_words, k.box_words = keep_state.shape[1], kw, bw
    # the terms' columns, contiguous
    kinds = np.ascontiguousarray(t[:, 0])
    a_col = np.ascontiguousarray(t[:, 1])
    b_col = np.ascontiguousarray(t[:, 2])
    cdef const int64_t[::1] kv = kinds
    cdef const int64_t[::1] av = a_col
    cdef const int64_t[::1] bv = b_col
    if n_terms:
        k.term_kind, k.term_a, k.term_b = &kv[0], &av[0], &bv[0]
    n_runs = run_starts(&pos[0, 0], n, &starts[0])
    n_chunks = min(n_runs, MAX_CHUNKS)
    with nogil, parallel(num_threads=max(n_threads, 1)):
        for chunk in prange(n_chunks, schedule="dynamic"):
            if not fill_chunk(&k, &pos[0, 0], &starts[0], n_runs, &keep[0, 0, 0], &cat[0, 0],
                              chunk, n_chunks):
                failed += 1
    if failed:
        raise MemoryError("card_tables: out of memory for its scratch buffers")
