/**
 * A project of a user's, as `npm install mailplane` leaves it: the packed tarball unpacked into
 * `node_modules/mailplane`, the package's dependencies beside it, and TypeScript files of the
 * user's that import `mailplane` by name. Nothing resolves to the repository's sources.
 *
 * The dependencies are the repository's own installed copies, linked one by one into the
 * project's `node_modules`: the machines that run the tests have no registry to install from
 * but the one `npm ci` used, and the versions are the lockfile's either way.
 */
import { execFile } from 'node:child_process';
import { cp, mkdir, mkdtemp, readdir, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** The repository's root. */
export const repositoryRoot = fileURLToPath(new URL('../..', import.meta.url));

/** The compiler options of the user's project: strict, Node's ES module resolution, as `tsc --init` on Node 20 suggests. */
const consumerTsconfig = {
  compilerOptions: {
    target: 'ES2022',
    lib: ['ES2023', 'DOM'],
    module: 'NodeNext',
    moduleResolution: 'NodeNext',
    strict: true,
    esModuleInterop: true,
    skipLibCheck: true,
    types: ['node'],
    outDir: 'build',
  },
  include: ['src'],
};

/** One TypeScript compiler error: the file of the project and the message. */
export interface CompileError {
  file: string;
  line: number;
  message: string;
}

/** A user's project with mailplane installed from its tarball. */
export interface ConsumerProject {
  /** The project's directory. */
  readonly dir: string;
  /** Writes `src/<name>` (a TypeScript file of the user's). */
  write(name: string, text: string): Promise<void>;
  /** Runs `tsc` on the project: the errors, none when it compiled (the JavaScript lands in `build/`). */
  compile(): Promise<CompileError[]>;
  /** Deletes the project. */
  remove(): Promise<void>;
}

/** What a fresh clone does not have: installed packages (linked instead), builds, local data. */
const notInAClone = new Set(['node_modules', '.git', 'dist', 'data', 'test-results', 'coverage', 'docs/api']);

/** A tarball `npm pack` made, and the files it holds. */
export interface PackedTarball {
  path: string;
  files: Set<string>;
}

/**
 * Packs the repository as `npm publish` would, from a copy that was never built (so a `dist/` left
 * by hand cannot hide a missing `prepack`), into `destination`.
 */
export async function packFreshCheckout(destination: string): Promise<PackedTarball> {
  const checkout = await mkdtemp(join(tmpdir(), 'mailplane-checkout-'));
  try {
    await cp(repositoryRoot, checkout, {
      recursive: true,
      filter: (source) => !notInAClone.has(relative(repositoryRoot, source)),
    });
    await symlink(join(repositoryRoot, 'node_modules'), join(checkout, 'node_modules'));
    const { stdout } = await run('npm', ['pack', '--json', '--pack-destination', destination], {
      cwd: checkout,
      timeout: 540_000,
      maxBuffer: 64 * 1024 * 1024,
    });
    // The build's own output comes first on stdout (npm runs prepack in the foreground); then npm's JSON.
    const [packed] = JSON.parse(stdout.slice(stdout.indexOf('[\n  {'))) as {
      filename: string;
      files: { path: string }[];
    }[];
    if (!packed) throw new Error(`npm pack printed no file: ${stdout}`);
    return { path: join(destination, packed.filename), files: new Set(packed.files.map((file) => file.path)) };
  } finally {
    await rm(checkout, { recursive: true, force: true });
  }
}

/** Creates a project in a temporary directory with the tarball unpacked as its `node_modules/mailplane`. */
export async function createConsumerProject(tarball: string): Promise<ConsumerProject> {
  const dir = await mkdtemp(join(tmpdir(), 'mailplane-consumer-'));
  const modules = join(dir, 'node_modules');
  await mkdir(join(modules, 'mailplane'), { recursive: true });
  await run('tar', ['-xzf', tarball, '-C', join(modules, 'mailplane'), '--strip-components=1']);
  await linkDependencies(join(repositoryRoot, 'node_modules'), modules);
  await writeFile(
    join(dir, 'package.json'),
    JSON.stringify({ name: 'consumer', private: true, type: 'module' }, null, 2),
  );
  await writeFile(join(dir, 'tsconfig.json'), JSON.stringify(consumerTsconfig, null, 2));
  await mkdir(join(dir, 'src'));
  return {
    dir,
    write: (name, text) => writeFile(join(dir, 'src', name), text),
    compile: () => compileProject(dir),
    remove: () => rm(dir, { recursive: true, force: true }),
  };
}

/** Links each installed package (scoped ones one level down) into `target`, mailplane itself excepted. */
async function linkDependencies(source: string, target: string): Promise<void> {
  for (const entry of await readdir(source)) {
    if (entry === 'mailplane' || entry === '.package-lock.json') continue;
    await symlink(join(source, entry), join(target, entry));
  }
}

/** Runs the repository's TypeScript compiler on the project and reads its errors. */
async function compileProject(dir: string): Promise<CompileError[]> {
  const tsc = join(repositoryRoot, 'node_modules', 'typescript', 'bin', 'tsc');
  try {
    await run(process.execPath, [tsc, '-p', dir, '--pretty', 'false'], { cwd: dir, timeout: 180_000 });
    return [];
  } catch (error) {
    const output = (error as { stdout?: string }).stdout ?? String(error);
    return parseCompilerOutput(output);
  }
}

/** Reads `file(line,col): error TSnnnn: message` lines; an output of another shape is one error as is. */
function parseCompilerOutput(output: string): CompileError[] {
  const errors = [...output.matchAll(/^(.+?)\((\d+),\d+\): error (TS\d+: .*)$/gm)].map((match) => ({
    file: match[1]!,
    line: Number(match[2]),
    message: match[3]!,
  }));
  return errors.length > 0 ? errors : [{ file: '', line: 0, message: output.trim() }];
}
