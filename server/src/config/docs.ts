// The settings' documentation, made from their declaration (config/settings.ts) so that it cannot drift:
// the environment section of `loadfeed-server start --help`, and server/README.md's configuration table,
// which `npm run docs:config -w @loadfeed/server` writes between its markers.
import type { Setting } from './kinds.js';
import { SETTINGS } from './settings.js';

const declared: Setting<unknown>[] = Object.values(SETTINGS);

/** The README's table of settings, in Markdown. */
export function configurationTable(): string {
  const rows = declared.map((setting) => {
    const see = setting.see ? `. See [${setting.see.heading}](#${setting.see.anchor})` : '';
    return `| \`${setting.env}\` | ${setting.defaultText} | ${setting.accepts} | ${setting.meaning}${see} |`;
  });
  return ['| Variable | Default | Accepts | Meaning |', '|---|---|---|---|', ...rows].join('\n');
}

/** Where the generated table begins and ends in server/README.md. */
export const TABLE_MARKERS = {
  begin: '<!-- configuration-table: generated from src/config/settings.ts by `npm run docs:config -w @loadfeed/server`; do not edit -->',
  end: '<!-- configuration-table: end -->',
};

/** `readme` with the text between the markers replaced by the table of today's settings. */
export function withConfigurationTable(readme: string): string {
  const begin = readme.indexOf(TABLE_MARKERS.begin);
  const end = readme.indexOf(TABLE_MARKERS.end);
  if (begin < 0 || end < begin) throw new Error('the README has no configuration-table markers');
  return `${readme.slice(0, begin + TABLE_MARKERS.begin.length)}\n${configurationTable()}\n${readme.slice(end)}`;
}

const HELP_WIDTH = 100;
const plain = (text: string): string => text.replaceAll('`', '');

/** Words of `text` filled into lines of at most HELP_WIDTH characters, each after `indent`. */
function fill(text: string, indent: string): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(/\s+/)) {
    if (line !== '' && indent.length + line.length + 1 + word.length > HELP_WIDTH) {
      lines.push(indent + line);
      line = word;
    } else {
      line = line === '' ? word : `${line} ${word}`;
    }
  }
  if (line !== '') lines.push(indent + line);
  return lines;
}

/** The settings as `start --help` lists them: each variable with its default and bounds, then its meaning. */
export function settingsHelp(): string {
  return declared
    .flatMap((setting) => [
      `  ${setting.env} (default ${plain(setting.defaultText)}; ${plain(setting.accepts)})`,
      ...fill(`${plain(setting.meaning)}${setting.see ? ` (README: ${setting.see.heading})` : ''}.`, '      '),
    ])
    .join('\n');
}
