// One renderer per game, loaded only when a table of that game is shown.
const RENDERERS = {
  artus: () => import("./artus.js"),
  "kings-and-castles": () => import("./kings_and_castles.js"),
  lancaster: () => import("./lancaster.js"),
};

export const GAME_NAMES = {
  artus: "Artus",
  "kings-and-castles": "Kings and Castles",
  lancaster: "Lancaster",
};

/** @param {string} game
 *  @returns {Promise<import("./common.js").Renderer>} */
export async function renderer(game) {
  const load = RENDERERS[game];
  if (!load) throw new Error(`no renderer for ${game}`);
  return (await load()).default;
}
