#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Mutation check of the unit tests: build them against deliberately broken
# copies of module/nonres.c and module/policy.c, one defect each, and
# require that every copy fails the tests.  A surviving mutant means an
# assertion too weak to notice that defect.
#
#   mutants.sh CC OUTDIR
#
# Each mutant is a literal (fixed-string) replacement in the source; one
# whose text no longer appears (the module changed) is reported as SKIP.
set -u
cc=$1 out=$2
top=$(cd ../.. && pwd)
cflags="-std=gnu11 -O1 -g -w -I$top/include -I$top/tools/include -I. -pthread"
mkdir -p "$out"

# file|name|from|to
mutants=$(cat <<'EOF'
nonres|distance always 0|r->distance = (u64)age << t->shift;|r->distance = 0;
nonres|distance one step long|r->distance = (u64)age << t->shift;|r->distance = (u64)(age + 1) << t->shift;
nonres|lookup never matches|if ((c & CP_CHECK_MASK) != check)|if (1)
nonres|lookup does not consume|if (cp_cmpxchg64(&w[cp_match_word(bit)], v, rest) != v)|if (cp_cmpxchg64(&w[cp_match_word(bit)], v, v) != v)
nonres|lookup takes the oldest match|if (age < best_age) {|if (age < CP_TS_RANGE && (best_age == CP_TS_RANGE \|\| age > best_age)) {
nonres|lookup ignores expiry|if (cp_expired(cp_age(c, now_ts)))|if (0)
nonres|lookup: a future entry read as old|		age = 0;|		(void)0;
nonres|expiry one step late|return age > CP_TS_RANGE / 2;|return age > CP_TS_RANGE / 2 + 1;
nonres|expiry one step early|return age > CP_TS_RANGE / 2;|return age >= CP_TS_RANGE / 2;
nonres|full bucket: a word other than the oldest's|old = best - nbase;|old = READ_ONCE(w[victim ^= 1]);
nonres|full bucket: the younger entry displaced|pair = (u64)cp_lo(old) << 32 \| cookie;|pair = (u64)cp_hi(old) << 32 \| cookie;
nonres|full bucket: the new entry always young|if (unlikely(cp_lo(best) > cookie + (u32)nbase))|if (0)
nonres|expired slots not cleared|if (gone && cp_cmpxchg64(&w[j], v, live) == v)|if (0)
nonres|10-bit timestamps|return (u32)(clock >> t->shift) & CP_TS_MASK;|return (u32)(clock >> t->shift) & 0x3ff;
nonres|coarse steps (64 per capacity)|(1ULL << (CP_STEPS_SHIFT + 1))|(1ULL << (CP_STEPS_SHIFT - 2))
nonres|check value 10 bits|u32 c = (u32)hash & CP_CHECK_MASK;|u32 c = (u32)hash & 0x3ff;
nonres|bucket from 8 low hash bits|u64 b = ((hash >> 32) * (u64)t->nbuckets) >> 32;|u64 b = (hash & 0xff) % t->nbuckets;
nonres|flags not stored|(flags & CP_FLAG_ACTIVE) \||0 \|
nonres|clock_advance returns the new clock|return (u64)cp_atomic64_add_return(nr, &t->clock) - nr;|return (u64)cp_atomic64_add_return(nr, &t->clock);
nonres|count includes expired|if (c && !cp_expired(cp_age(c, now_ts)))|if (c)
nonres|remember without cmpxchg|if (unlikely(cp_cmpxchg64(&w[victim], old, pair) != old))|if (unlikely((WRITE_ONCE(w[victim], pair), 0)))
nonres|slow remember without cmpxchg|if (cp_cmpxchg64(&w[victim], old, pair) == old) {|if ((WRITE_ONCE(w[victim], pair), 1)) {
nonres|expired victim taken on the fast path|if (unlikely(!full \|\| cp_hi(best) < CP_RANK_EMPTY \|\||if (unlikely(!full \|\|
nonres|remember: no guard for a wrapped high half|	     lo < cp_hi(best)))|	     0))
nonres|lookup: half of a match ignored|return (u32)(v >> (bit & 32));|return (u32)v;
nonres|lookup: word of a match off by one|return (unsigned long)(bit & 31) - CP_CHECK_BITS;|return ((unsigned long)(bit & 31) - CP_CHECK_BITS) ^ 1;
nonres|lookup without cmpxchg|if (cp_cmpxchg64(&w[cp_match_word(bit)], v, rest) != v)|if ((WRITE_ONCE(w[cp_match_word(bit)], rest), 0))
nonres|hash ignores the index|u64 b = ((u64)index ^ 0xe7037ed1a0b428dbULL)|u64 b = ((u64)(index & 0xff) ^ 0xe7037ed1a0b428dbULL)
nonres|lookup: claim leaves the other entry low|u64 rest = (v ^ (u64)cp_match_cookie(v, bit) << half) << half;|u64 rest = (u32)(v >> (~bit & 32));
nonres|lookup: several matches, first taken|if (likely(!(match & (match - 1)) && age < CP_TS_RANGE &&|if (likely(age < CP_TS_RANGE &&
nonres|free words not seen|full *= cp_lo(v);|(void)0;
nonres|free words not seen, but empty ones|full *= cp_lo(v);|full *= v != 0;
nonres|pairs not ordered|if (cp_rank(a, base) > cp_rank(b, base))|if (0)
nonres|slow path ranks the high halves only|return min(cp_rank(cp_hi(w), base), cp_rank(cp_lo(w), base));|return cp_rank(cp_hi(w), base);
nonres|slow path: free word ranks as empty|return min(cp_rank(cp_hi(w), base), cp_rank(cp_lo(w), base));|return cp_lo(w) ? min(cp_rank(cp_hi(w), base), cp_rank(cp_lo(w), base)) : CP_RANK_EMPTY;
nonres|expired low half not counted|*gone = (hi && !live_hi) + (lo && !live_lo);|*gone = (hi && !live_hi);
nonres|slow path keeps the older of two|pair = cp_pair(cp_lo(live) ? cp_lo(live) : cp_hi(live), cookie,|pair = cp_pair(cp_hi(live) ? cp_hi(live) : cp_lo(live), cookie,
policy|grow does nothing|s->target = cp_clamp_target(p, sz, s->target + (s64)p->step * n);|s->target = cp_clamp_target(p, sz, s->target);
policy|shrink grows|s->target = cp_clamp_target(p, sz, s->target - (s64)p->step);|s->target = cp_clamp_target(p, sz, s->target + (s64)p->step);
policy|target ignores the inactive floor|hi = min(hi, room);|(void)room;
policy|target ignores min_pct|lo = min(lo, hi);|lo = 1;
policy|deactivate holds below the floor|if (escalated \|\| sz->inactive < cp_policy_floor(p, sz))|if (escalated)
policy|deactivate ignores escalation|if (escalated \|\| sz->inactive < cp_policy_floor(p, sz))|if (sz->inactive < cp_policy_floor(p, sz))
policy|fixed target adapts|if (p->fixed_pct \|\| !n)|if (!n)
policy|credits not spent|s->credits--;|;
policy|never fills the hot set|if ((s64)sz->active < target) {|if (0) {
policy|pending uncapped|if (s->pending < 4 * (u64)p->hand_batch)|if (1)
policy|credits above target|if (s->target && (s64)sz->active <= cp_policy_target(p, s, sz) &&|if (s->target &&
policy|validate accepts step 0|if (!p->step \|\| p->step > 65536)|if (p->step > 65536)
nonres|local distance is the global one|return min_t(u64, (u32)(now - a), distance);|return distance;
nonres|local clock samples not recorded|lc->at[i % CP_LCLOCK_SAMPLES] = (u32)lc->now;|(void)i;
nonres|local clock not interpolated|a += (u32)((u64)(u32)(b - a) * frac / span);|(void)frac;
policy|enlarged scans not capped|return min_t(u64, n, max_t(u64, nr_to_scan, sz->inactive));|return n;
policy|escalated scans rotate|s->pass = escalated;|s->pass = false;
policy|aging grant read from the state|if ((seen & CP_SCAN_AGE_ONLY) && !s->wanted) {|if (s->age_only && !s->wanted) {
policy|validate accepts max 100|if (p->target_max_pct + p->floor_pct > 99)|if (p->target_max_pct + p->floor_pct > 100)
policy|was-hot refaults adapt|u32 test = flags & CP_FLAG_ACTIVE ? 0 : 1;|u32 test = 1;
policy|aging demotes|if ((seen & CP_SCAN_AGE_ONLY) && !s->wanted) {|if (0) {
policy|aging ignores a wanted victim|if ((seen & CP_SCAN_AGE_ONLY) && !s->wanted) {|if (seen & CP_SCAN_AGE_ONLY) {
policy|aging not spread over the window|due = s->sweep_len * ((elapsed << 16) / window) >> 16;|due = s->sweep_len;
policy|aging on top of refault steps|s->sweep_given += n;|(void)0;
policy|kept-cold refault wants no victim|if (s->wanted < 4 * (u64)p->hand_batch)|if (0)
policy|demoted page's hit shrinks|if (!s->target \|\| (flags & CP_FLAG_ACTIVE))|if (!s->target)
policy|quick path during an episode|if (s->idle_on \|\| !cp_lru(last))|if (!cp_lru(last))
policy|quick path past the idle window|if (cp_quiet_after(p, s, last, s->quiet + 1) &&|if (0 &&
policy|quick path only within the window|	    cp_hot_set_established(last))|	    1)
policy|cold hit adapts nothing|if (!s->target \|\| (flags & CP_FLAG_ACTIVE))|if (1)
policy|cold hit adapts while the hot set fills|return false;	/* the hot set has room: it fills */|;
policy|cold hit counts pages of the fill|if (sz->clock - s->fill_clock < s->fill_inactive)|if (0)
policy|state start is no fill|.fill_inactive = sz->inactive,|.fill_inactive = 0,
policy|fill never noted|s->fill_inactive = sz->inactive;|(void)0;
policy|fill noted without the band|if ((s64)(sz->active + cp_hyst(p, sz)) < target) {|if ((s64)sz->active <= target) {
policy|idle begins with half the LRU hot|return sz->active * 4 >= cp_lru(sz) * 3;|return sz->active * 2 >= cp_lru(sz);
policy|idle begins with free memory = LRU|return cp_hot_set_established(sz) && sz->free * 2 < cp_lru(sz);|return cp_hot_set_established(sz) && sz->free <= cp_lru(sz);
policy|idle episode needs no start|return s->idle_on && cp_quiet(p, s, sz);|return cp_quiet(p, s, sz);
policy|idle target does not follow|cp_idle_follow(p, s, sz);	/* the new set so far */|(void)0;
policy|idle target follows a fixed one|	if (!p->fixed_pct && s->idle_on && s->target &&|	if (s->idle_on && s->target &&
policy|idle target not at init|cp_idle_follow(p, s, sz);	/* begun during an episode */|(void)0;
policy|free memory never asked for|return !s->idle_on && cp_quiet_after(p, s, sz, s->quiet + 1) &&|return 0 && cp_quiet_after(p, s, sz, s->quiet + 1) &&
policy|free memory asked for one page late|return !s->idle_on && cp_quiet_after(p, s, sz, s->quiet + 1) &&|return !s->idle_on && cp_quiet_after(p, s, sz, s->quiet) &&
policy|idle ignores the knob|return p->idle_pct &&|return
policy|never idle|return p->idle_pct &&|return 0 &&
policy|idle one page early|	       quiet > CP_PCT(|	       quiet >= CP_PCT(
policy|reuse forgotten|s->quiet = 0;|(void)0;
policy|new pages not counted|s->quiet++;|(void)0;
policy|idle demotes young pages|if (!(seen & CP_SCAN_YOUNG) && cp_idle(p, s, sz)) {|if (cp_idle(p, s, sz)) {
policy|idle hand keeps referenced pages|if (!(seen & CP_SCAN_YOUNG) && cp_idle(p, s, sz)) {|if (0) {
policy|refault within the LRU no reuse|cp_policy_reused(s);|(void)0;
policy|cold hit no reuse|cp_policy_reused(s);	/* a cold page used again */|(void)0;
policy|metadata refault is a reuse|if (!(flags & CP_FLAG_META))|if (1)
policy|state start forgets the idle count|.quiet = s->quiet,|.quiet = 0,
policy|idle does not drain|						    p->hand_batch),|						    0),
policy|idle drains new pages too|					 s->idle_old));|					 -1));
policy|idle episode not started|s->idle_old = sz->active;|s->idle_old = 0;
policy|old pages not counted down|s->idle_old--;|(void)0;
policy|reuse keeps the drain|s->idle_old = 0;|(void)0;
policy|idle window never doubles|quiet > CP_PCT(cp_lru(sz), p->idle_pct) << s->idle_shift;|quiet > CP_PCT(cp_lru(sz), p->idle_pct);
policy|lost bet without debt|if ((flags & CP_FLAG_ACTIVE) && s->idle_debt &&|if ((flags & CP_FLAG_ACTIVE) &&
policy|lost bet from beyond the LRU|    distance <= cp_lru(sz) &&|    1 &&
policy|idle debt never kept|s->idle_debt++;|(void)0;
policy|idle window uncapped|if (s->idle_shift < 6)|if (s->idle_shift < 60)
policy|lost bet not reinstated|	if (lost) {|	if (0) {
policy|lost bet at any age|sz->clock <= s->idle_clock + cp_lru(sz) + distance) {|1) {
policy|idle demotion time not kept|s->idle_clock = sz->clock;|(void)0;
policy|idle hand ages|	if (cp_idle(p, s, sz)) {|	if (0) {
policy|aging owed for the episode|cp_age_restart(s, sz);	/* none owed */|(void)0;
EOF
)

total=$(echo "$mutants" | wc -l)
echo "TAP version 13"
echo "1..$total"
i=0 killed=0 survived=0 skipped=0
echo "$mutants" | {
while IFS= read -r line; do
	i=$((i + 1))
	file=$(echo "$line" | cut -d'|' -f1)
	rest=$(echo "$line" | cut -d'|' -f2- | sed 's/\\|/\x01/g')
	name=$(echo "$rest" | cut -d'|' -f1 | tr '\001' '|')
	from=$(echo "$rest" | cut -d'|' -f2 | tr '\001' '|')
	to=$(echo "$rest" | cut -d'|' -f3 | tr '\001' '|')
	src="$top/module/$file.c"
	mut="$out/m$i-$file.c"
	FROM=$from TO=$to perl -0pe '
		BEGIN { $f = $ENV{FROM}; $t = $ENV{TO}; $n = 0 }
		$n += s/\Q$f\E/$t/;
		END { exit($n ? 0 : 3) }' "$src" >"$mut"
	if [ $? -ne 0 ]; then
		echo "ok $i - $file: $name # SKIP text not found in module/$file.c"
		skipped=$((skipped + 1))
		continue
	fi
	if [ "$file" = nonres ]; then
		objs="test_nonres.c $mut"
		bin="$out/m$i"
		run="$bin"
	else
		objs="test_policy.c $mut $top/module/nonres.c"
		bin="$out/m$i"
		run="$bin"
	fi
	if ! $cc $cflags -o "$bin" $objs -lm 2>"$out/m$i.log"; then
		echo "not ok $i - $file: $name # does not compile, see $out/m$i.log"
		survived=$((survived + 1))
		continue
	fi
	CP_TEST_SCALE=0.25 timeout 120 "$run" >"$out/m$i.out" 2>&1
	rc=$?
	by=$(grep '^not ok' "$out/m$i.out" | grep -v '# TODO' |
	     sed 's/^not ok [0-9]* - //' | tr '\n' ' ')
	if [ $rc -ne 0 ]; then
		[ $rc -eq 124 ] && by="(timeout) $by"
		[ -z "$by" ] && by="(crash, exit $rc)"
		echo "ok $i - $file: $name # killed by: $by"
		killed=$((killed + 1))
	else
		echo "not ok $i - $file: $name # SURVIVED"
		survived=$((survived + 1))
	fi
done
echo "# $killed killed, $survived survived, $skipped skipped"
echo "# Totals: pass:$killed fail:$survived xfail:0 xpass:0 skip:$skipped error:0"
[ $survived -eq 0 ]
}
