# cython: language_level=3
"""The rules in kernel form for the compiled core: :class:`KernelRules` as a C struct of
pointers into its arrays (:func:`yahtzee_sim._core.bundle.rules_of`), and the scoring step
on it — legality (joker rules), points, the Yahtzee bonus, the state index. Every
function is ``inline``: each kernel module compiles its own copy.

Field meanings are those of :class:`yahtzee_sim._kernels.scoring.KernelRules`; a 2-d
table is row-major with the width named beside it.
"""

from libc.stdint cimport int8_t, int16_t, int32_t, int64_t, uint8_t

cdef enum:
    JOKER_NONE = 0
    JOKER_FREE = 1
    JOKER_FORCED = 2

cdef struct Rules:
    const int16_t* score_table  # n_rolls x n_boxes
    const int16_t* joker_table  # n_rolls x n_boxes
    const int8_t* yahtzee_face  # n_rolls
    const int64_t* upper_cat_of_face  # n_faces
    const uint8_t* is_upper  # n_boxes
    const double* first_roll_prob  # n_rolls
    const int32_t* keep_add  # n_keeps x n_faces
    const int32_t* keep_remove  # n_keeps x n_faces
    const int64_t* keep_sub  # n_keeps x sub_width
    const int64_t* keep_sub_count  # n_keeps
    const int8_t* keep_size  # n_keeps
    const int32_t* roll_keep_index  # n_rolls
    const int32_t* roll_keep_ptr  # n_rolls + 1: CSR roll -> its sub-keeps, ascending
    const int32_t* roll_keep_keep
    const int64_t* slot_ptr  # n_boxes + 1
    const int64_t* slot_points  # n_slots
    const int64_t* score_slot  # n_rolls x n_boxes
    const int64_t* box_score_slot  # n_boxes x n_rolls
    const int64_t* points_slot  # n_boxes x points_width
    const int64_t* code_weights  # n_faces: a multiset's code is sum(count[f] * weight[f])
    const int32_t* code_to_roll  # code -> roll index
    const int8_t* roll_counts  # n_rolls x n_faces
    int64_t n_rolls
    int64_t n_keeps
    int64_t n_slots
    int64_t sub_width
    int64_t points_width
    int64_t n_dice
    int64_t n_faces
    int64_t n_boxes
    int64_t rolls
    int64_t joker
    int64_t yahtzee_index
    int64_t yahtzee_points
    int64_t yahtzee_bonus
    int64_t yahtzee_bonus_limit
    int64_t upper_cap
    int64_t upper_bonus
    int64_t n_codes
    int64_t n_states  # states of the product layout
    int64_t max_points  # the most points one box can score (joker scores included)
    int64_t flag_size
    int64_t saved_size
    int64_t saved_roll_cap
    int64_t levels
    bint forced_order
    bint saving


cdef inline bint box_open(const Rules* kr, int64_t used, int64_t c) noexcept nogil:
    """Whether box ``c`` may be filled at used-mask ``used`` (open; under forced order,
    the first open box)."""
    cdef int64_t below = ((<int64_t>1) << c) - 1
    return ((used >> c) & 1) == 0 and ((not kr.forced_order) or (used & below) == below)


cdef inline int64_t joker_case(const Rules* kr, int64_t roll, int64_t used, int64_t flag) noexcept nogil:
    """How a roll may be scored: 0 normal; 1 forced joker, the matching upper box only;
    2 free joker; 3 forced joker, open lower boxes at joker values; 4 forced joker with
    no lower box open (any open upper box, for 0)."""
    cdef int64_t yi = kr.yahtzee_index
    cdef int64_t upper_c, c
    cdef bint upper_open
    if kr.joker == JOKER_NONE or yi < 0 or kr.yahtzee_face[roll] < 0:
        return 0
    if ((used >> yi) & 1) == 0:
        return 0
    upper_c = kr.upper_cat_of_face[kr.yahtzee_face[roll]]
    upper_open = upper_c >= 0 and ((used >> upper_c) & 1) == 0
    if kr.joker == JOKER_FREE:
        return 0 if upper_open else 2
    if upper_open:
        return 1
    for c in range(kr.n_boxes):
        if not kr.is_upper[c] and ((used >> c) & 1) == 0:
            return 3
    return 4


cdef inline int64_t box_legal_points(
    const Rules* kr, int64_t case, int64_t roll, int64_t used, int64_t c
) noexcept nogil:
    """Points of box ``c`` for ``roll`` (no bonuses), or -1 if ``c`` is illegal."""
    cdef int64_t below
    cdef int64_t at = roll * kr.n_boxes + c
    if (used >> c) & 1:
        return -1
    if kr.forced_order:
        below = ((<int64_t>1) << c) - 1
        if (used & below) != below:
            return -1
        if case <= 1 or kr.is_upper[c]:
            return kr.score_table[at]
        return kr.joker_table[at]
    if case == 0:
        return kr.score_table[at]
    if case == 1:
        if c != kr.upper_cat_of_face[kr.yahtzee_face[roll]]:
            return -1
        return kr.score_table[at]
    if case == 2:
        return kr.joker_table[at]
    if case == 3:
        return -1 if kr.is_upper[c] else kr.joker_table[at]
    return kr.score_table[at]


cdef inline int64_t yahtzee_bonus_points(
    const Rules* kr, int64_t roll, int64_t used, int64_t flag
) noexcept nogil:
    """Yahtzee bonus earned by scoring ``roll`` (whatever box it goes in)."""
    if kr.yahtzee_bonus == 0 or kr.yahtzee_index < 0 or kr.yahtzee_face[roll] < 0:
        return 0
    if ((used >> kr.yahtzee_index) & 1) == 0 or flag == 0:
        return 0
    if kr.yahtzee_bonus_limit > 0 and flag > kr.yahtzee_bonus_limit:
        return 0
    return kr.yahtzee_bonus


cdef inline int64_t roll_options(
    const Rules* kr, int64_t roll, int64_t used, int64_t flag, int64_t* points
) noexcept nogil:
    """``points[c]`` = the legal points of box ``c`` (-1 if illegal, joker rules
    applied); returns the roll's Yahtzee bonus."""
    cdef int64_t case = joker_case(kr, roll, used, flag)
    cdef int64_t c
    for c in range(kr.n_boxes):
        points[c] = box_legal_points(kr, case, roll, used, c)
    return yahtzee_bonus_points(kr, roll, used, flag)


cdef inline bint kinds_score_normally(const Rules* kr, int64_t used) noexcept nogil:
    """Whether every n-of-a-kind roll scores as any other roll at ``used`` (no joker
    rule applies, no Yahtzee bonus is paid)."""
    cdef int64_t yi = kr.yahtzee_index
    return (
        yi < 0
        or ((used >> (yi if yi > 0 else 0)) & 1) == 0
        or (kr.joker == JOKER_NONE and kr.yahtzee_bonus == 0)
    )


cdef inline bint sets_flag(const Rules* kr, int64_t c, int64_t p) noexcept nogil:
    """Whether ``p`` points in box ``c`` set the Yahtzee-bonus flag."""
    return kr.flag_size >= 2 and c == kr.yahtzee_index and p == kr.yahtzee_points and p > 0


cdef inline int64_t flag_after_roll(const Rules* kr, int64_t flag, int64_t yb) noexcept nogil:
    """The flag once a roll's Yahtzee bonus ``yb`` is paid (a bonus limit moves it)."""
    if yb > 0 and kr.yahtzee_bonus_limit > 0:
        return min(flag + 1, kr.flag_size - 1)
    return flag


cdef inline int64_t saved_state_index(
    const Rules* kr, int64_t used, int64_t upper, int64_t flag, int64_t saved
) noexcept nogil:
    """The one state-index formula: upper fastest, then the saved rolls, the flag and
    the used-mask."""
    return ((used * kr.flag_size + flag) * kr.saved_size + saved) * (kr.upper_cap + 1) + upper


cdef inline int64_t filled_boxes(int64_t used) noexcept nogil:
    """Number of filled boxes of ``used`` (its set bits)."""
    cdef int64_t n = 0
    while used:
        used &= used - 1
        n += 1
    return n


cdef inline bint next_state_depends_on_points(const Rules* kr, int64_t c) noexcept nogil:
    """Whether the state after scoring box ``c`` depends on the points written there (an
    upper box moves the upper total; a full-points Yahtzee may set the flag)."""
    return (kr.is_upper[c] and kr.upper_cap > 0) or (kr.flag_size >= 2 and c == kr.yahtzee_index)


cdef inline int64_t scored_state(
    const Rules* kr, int64_t used, int64_t upper, int64_t flag, int64_t c, int64_t p,
    int64_t* bonus,
) noexcept nogil:
    """The scoring step: the next state's index after ``p`` points in box ``c`` (no saved
    roll), and in ``bonus`` the upper bonus paid (the Yahtzee bonus is paid for the roll)."""
    cdef int64_t cap = kr.upper_cap
    cdef int64_t u2 = upper
    cdef int64_t nf = 1 if sets_flag(kr, c, p) else flag
    bonus[0] = 0
    if kr.is_upper[c] and cap != 0:
        u2 = upper + p
        if u2 >= cap:
            u2 = cap
            bonus[0] = kr.upper_bonus if upper < cap else 0
    return saved_state_index(kr, used | ((<int64_t>1) << c), u2, nf, 0)


cdef inline int64_t roll_box_points(
    const Rules* kr, int64_t roll, int64_t used, int64_t flag, int64_t c
) noexcept nogil:
    """Points of box ``c`` for ``roll`` at ``used`` and ``flag``, the joker rules applied,
    or -1 if ``c`` is illegal."""
    return box_legal_points(kr, joker_case(kr, roll, used, flag), roll, used, c)


cdef inline int64_t upper_bonus_paid(
    const Rules* kr, int64_t upper, int64_t c, int64_t p
) noexcept nogil:
    """The upper bonus paid by ``p`` points in box ``c`` from the capped total ``upper``:
    an upper box that makes the total reach the cap now pays it."""
    cdef int64_t cap = kr.upper_cap
    if not kr.is_upper[c] or cap == 0 or upper + p < cap:
        return 0
    return kr.upper_bonus if upper < cap else 0


cdef inline int64_t upper_after(
    const Rules* kr, int64_t upper, int64_t c, int64_t p, int64_t* bonus
) noexcept nogil:
    """The upper total after ``p`` points in box ``c`` from the capped total ``upper``, and
    in ``bonus`` the upper bonus paid: an upper box moves it to ``min(upper + p, cap)``
    and pays the bonus when it reaches the cap now."""
    cdef int64_t cap = kr.upper_cap
    cdef int64_t u2
    bonus[0] = 0
    if not kr.is_upper[c] or cap == 0:
        return upper
    u2 = upper + p
    if u2 < cap:
        return u2
    bonus[0] = kr.upper_bonus if upper < cap else 0
    return cap


cdef inline bint bonus_roll(const Rules* kr, int64_t flag, int64_t* bonus_flag) noexcept nogil:
    """Whether a roll at flag ``flag`` can earn the Yahtzee bonus; ``bonus_flag``: the flag
    after a bonus Yahtzee (what a lane valuing the boxes of a state needs for a Yahtzee
    rolled there)."""
    bonus_flag[0] = flag_after_roll(kr, flag, 1)
    return kr.yahtzee_bonus > 0 and flag >= 1


cdef inline void open_slot_range(
    const int64_t* slot_ptr, int64_t used, int64_t c, int64_t* lo, int64_t* hi
) noexcept nogil:
    """Box ``c``'s slots ``lo .. hi - 1`` (``slot_ptr`` is ``kr.slot_ptr``), an empty range
    when used-mask ``used`` has the box filled."""
    lo[0] = slot_ptr[c]
    hi[0] = slot_ptr[c] if (used >> c) & 1 else slot_ptr[c + 1]
