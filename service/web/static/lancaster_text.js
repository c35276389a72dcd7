// Lancaster in words, for the text view (reader.js): the round, the phase and the order, your
// screen and knights (your hand), every player's public track (the scores: power), the nine
// counties, the conflicts, parliament (the laws in force, under debate, the vote: your own
// secret vote only, the others' once revealed) and every castle.  Only what the view holds.
import { colourName, favourWords, knightColour, lawText, PHASES, rewardWord, SPACES, spaceWords, voteWord } from "./lancaster.js";
import { N_, t, tn } from "./i18n.js";
import { html } from "./ui.js";
import { and, dataTable, list, part } from "./text_parts.js";

const LETTER = { red: "R", blue: "B", green: "G", yellow: "Y", purple: "P" };
const cap = (s) => (s ? s[0].toUpperCase() + s.slice(1) : s);
const words = (id) => String(id).replaceAll("_", " ");
const strength = (k) => Number(k.split("-")[1][0]);
const NTH = { b: N_("{colour}'s knight of strength {strength} (second)"), c: N_("{colour}'s knight of strength {strength} (third)") };
/** "red-2b": Red's knight of strength 2 (second): there are two. */
const kName = (k) =>
  t(NTH[k.split("-")[1].slice(1)] || N_("{colour}'s knight of strength {strength}"), { colour: cap(colourName(knightColour(k))), strength: String(strength(k)) });
const knights = (ks) => (ks || []).map(kName).join(t("; ")) || t("none");
const reward = (r) => and(Object.entries(r || {}).map(([k, v]) => t("{count} {reward}", { count: v, reward: rewardWord(k) }))) || t("nothing");
const lawName = (id) => t("Law {n}", { n: String(id).replace(/^L/, "") });
const law = (id) => `${lawName(id)}: ${lawText(id)}`;
const phase = (s) => (PHASES[s.phase] ? t(PHASES[s.phase]) : words(s.phase));

function sections(s, c) {
  const me = c.you;
  const res = c.view && c.view.result;
  const mine = me != null ? s.players.find((p) => p.seat === me) : null;
  const county = (L) => (s.counties[L] ? `${s.counties[L].name} (${L})` : L);
  const parts = [];
  parts.push(
    part(
      "reader-round",
      t("The round"),
      list([
        t("Round {round} of 5: {phase}.", { round: s.round, phase: phase(s) }),
        t("Start player: {name}; order: {names}.", { name: c.names[s.start], names: s.order.map((x) => c.names[x]).join(t(", then ")) }),
        t("The King's favour face up: {tiles}.", { tiles: and(s.favour.face_up.map(favourWords)) || t("none") }),
        ...(s.pending && s.pending.law ? [t("Now: {kind} on {law}.", { kind: words(s.pending.kind || ""), law: lawName(s.pending.law).toLowerCase() })] : []),
        ...(s.prisoners.length ? [t("Prisoners: {knights}.", { knights: knights(s.prisoners) })] : []),
      ]),
    ),
  );
  if (mine) {
    const screen = mine.gold != null ? t("{gold} gold and {squires} squires", { gold: mine.gold, squires: mine.squires }) : t("hidden");
    parts.push(
      part(
        "reader-hand",
        t("Your screen and knights"),
        list([
          t("Behind your screen: {screen}.", { screen }),
          t("Vote markers: {count}.", { count: mine.markers }),
          t("Your court (knights ready to send): {knights}.", { knights: knights(mine.knights.court) }),
          t("Your reserve: {knights}.", { knights: knights(mine.knights.reserve) }),
          ...(mine.ally_knights
            ? [
                t("Your ally {colour}'s court: {knights}.", { colour: colourName(mine.ally), knights: knights(mine.ally_knights.court) }),
                t("Your ally's reserve: {knights}.", { knights: knights(mine.ally_knights.reserve) }),
              ]
            : []),
          t("Extensions built: {spaces}; {count} left to build.", { spaces: and(mine.extensions.map(spaceWords)) || t("none"), count: mine.extension_pile }),
          t("Nobles at your table: {nobles}.", { nobles: and(mine.nobles.map(county)) || t("none") }),
        ]),
      ),
    );
  }
  parts.push(
    part(
      "reader-scores",
      res ? t("Scores: final points") : t("Scores: power"),
      dataTable(
        t("Each player's power, vote markers, screen, nobles and extensions"),
        [t("Player"), t("Colour"), res ? t("Final points") : t("Power"), t("Vote markers"), t("Gold"), t("Squires"), t("Nobles"), t("Extensions")],
        s.players.map((p) => [
          `${c.names[p.seat]}${p.seat === me ? t(" (you)") : ""}`,
          `${colourName(p.colour)} (${LETTER[p.colour] || "?"})${p.ally ? t(", ally {colour}", { colour: colourName(p.ally) }) : ""}`,
          res ? t("{points} (power {power})", { points: String(res.scores[p.seat]), power: String(p.power) }) : String(p.power),
          String(p.markers),
          p.gold != null ? String(p.gold) : t("hidden"),
          p.squires != null ? String(p.squires) : t("hidden"),
          and(p.nobles.map(county)) || t("none"),
          p.extensions.length ? `${p.extensions.length} (${and(p.extensions.map(spaceWords))})` : t("none"),
        ]),
      ),
    ),
  );
  parts.push(
    part(
      "reader-others",
      t("Every player's knights"),
      list(
        s.players.map((p) => {
          const own = t("court {court}; reserve {reserve}", { court: knights(p.knights.court), reserve: knights(p.knights.reserve) });
          const ally = p.ally_knights ? t("; ally court {court}; ally reserve {reserve}", { court: knights(p.ally_knights.court), reserve: knights(p.ally_knights.reserve) }) : "";
          return `${c.names[p.seat]}${p.seat === me ? t(" (you)") : ""}: ${own}${ally}${t(".")}`;
        }),
      ),
    ),
  );
  parts.push(
    part(
      "reader-board",
      t("The counties"),
      dataTable(
        t("The nine counties: the strength a knight needs, the reward, nobles left and who holds it"),
        [t("County"), t("Needs strength"), t("Reward"), t("Nobles left"), t("Held by")],
        Object.keys(s.counties).map((L) => {
          const ct = s.counties[L];
          const occ = ct.occupant;
          return [
            county(L),
            String(ct.min),
            reward(ct.reward),
            String(ct.nobles_left),
            occ ? (occ.squires ? tn("{knight} with {count} squire", "{knight} with {count} squires", occ.squires, { knight: kName(occ.knight) }) : kName(occ.knight)) : t("nobody"),
          ];
        }),
      ),
    ),
  );
  const cfs = [...s.conflicts.upper.map((cf) => [cf, "upper"]), ...s.conflicts.lower.map((cf) => [cf, "lower"])];
  parts.push(
    part(
      "reader-conflicts",
      t("The conflicts ({count} left in the deck)", { count: s.conflicts.deck }),
      cfs.length
        ? dataTable(
            t("Each conflict: France's strength, England's, the power of each space and its knights"),
            [t("Conflict"), t("France"), t("England"), t("Power for spaces 1, 2, 3"), t("Knights")],
            cfs.map(([cf, row]) => [
              row === "upper" ? t("Conflict {n} (upper row)", { n: cf.n }) : t("Conflict {n} (lower row)", { n: cf.n }),
              String(cf.france),
              String(cf.strengths.reduce((a, b) => a + b, 0)),
              cf.power.join(t(", ")),
              cf.spaces.map((stack, i) => t("space {n}: {knights}", { n: i + 1, knights: knights(stack) })).join(t("; ")) || t("none"),
            ]),
          )
        : html`<p>${t("No conflicts on the board.")}</p>`,
    ),
  );
  const vote = s.vote;
  const voteLines = [];
  if (vote) {
    const on = lawName(vote.law).toLowerCase();
    const who = and(vote.committed.map((x) => c.names[x]));
    voteLines.push(
      vote.committed.length
        ? tn("The vote on {law}: {names} has voted.", "The vote on {law}: {names} have voted.", vote.committed.length, { law: on, names: who })
        : t("The vote on {law}: nobody has voted yet.", { law: on }),
    );
    if (vote.mine) voteLines.push(tn("Your secret vote: {tile} with {count} marker.", "Your secret vote: {tile} with {count} markers.", vote.mine.markers, { tile: voteWord(vote.mine.tile) }));
    if (vote.votes)
      for (const [x, v] of Object.entries(vote.votes))
        voteLines.push(tn("{name} voted {tile} with {count} marker.", "{name} voted {tile} with {count} markers.", v.markers, { name: c.names[x], tile: voteWord(v.tile) }));
  }
  parts.push(
    part(
      "reader-parliament",
      t("Parliament"),
      html`${part("reader-laws-now", t("Laws in force"), list(s.laws.current.map(law)), 4)}
        ${part("reader-laws-debate", t("Laws under debate"), list(s.laws.debate.map(law)), 4)}
        ${voteLines.length ? list(voteLines) : ""}`,
    ),
  );
  const colours = Object.keys(s.castles);
  parts.push(
    part(
      "reader-castles",
      t("The castles"),
      dataTable(
        t("Each castle's six spaces: the knight there, and the extensions built"),
        [t("Castle"), ...SPACES.map(spaceWords)],
        colours.map((col) => {
          const owner = s.players.find((p) => p.colour === col || p.ally === col);
          const built = owner && owner.colour === col ? owner.extensions : [];
          return [
            `${cap(colourName(col))}${owner ? ` (${owner.ally === col ? t("{name}'s ally", { name: c.names[owner.seat] }) : c.names[owner.seat]})` : ""}`,
            ...SPACES.map((sp) => {
              const k = (s.castles[col] || {})[sp];
              const bits = [k ? kName(k) : "", built.includes(sp) ? t("extension") : ""].filter(Boolean);
              return bits.join(t("; ")) || t("empty");
            }),
          ];
        }),
        { cls: "reader-castles" },
      ),
    ),
  );
  return parts;
}

/** The kinds of move, a group each. */
const KINDS = {
  build_start_extension: N_("Your first extension"),
  place_county: N_("Send a knight to a county"),
  place_castle: N_("Put a knight in your castle"),
  place_conflict: N_("Send a knight to a conflict"),
  take_favour: N_("The King's favour"),
  vote: N_("Vote, in secret"),
  county_reward: N_("County rewards"),
  choose_start_player: N_("The start player"),
  castle_reward: N_("Castle rewards"),
  ransom: N_("Ransom"),
  upgrade: N_("Upgrade a knight"),
  buy: N_("Buy"),
  pass: N_("Pass"),
};
const groupOf = (a) => (KINDS[a.type] ? t(KINDS[a.type]) : cap(words(a.type)));

/** @type {import("./common.js").TextView} */
export default { sections, groupOf };
