/*
 * The repository's own better-sqlite3 (development, tests, examples; never published): npm cannot
 * pin one version that loads on Node 20, 22 and 24. 12.x is the last for Node 20; on Node 24 its
 * statements can abort the process when collected (it subclasses node::ObjectWrap, whose cleanup
 * hook Node 24 changed); 13.x (Node-API) needs Node >= 22. So both are dependencies here, 13 an
 * optional one whose `engines` makes npm skip it on Node 20, and this file loads the newest that
 * installed. Users of the library install better-sqlite3 themselves: npm picks by `engines` then.
 */
'use strict';

const major = Number(process.versions.node.split('.')[0]);

function load() {
  if (major >= 22) {
    try {
      return require('better-sqlite3-node22');
    } catch (error) {
      if (major >= 24) {
        throw new Error(
          `better-sqlite3 13 is needed on Node ${process.versions.node} and did not install or build (${error.message.split('\n')[0]}): run \`npm rebuild better-sqlite3-node22\` (needs python3, make and a C++ compiler)`,
          { cause: error },
        );
      }
    }
  }
  return require('better-sqlite3-node20');
}

module.exports = load();
