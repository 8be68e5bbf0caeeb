// Said once, before the first test file starts, when the run is the whole suite (`npm test`, no file
// or folder named): how long it takes, so that a newcomer does not take a quiet minute for a hang.
// The reporter then prints each test file as it finishes.
export default function announce(): void {
  const named = globalThis.process.argv.slice(2).filter((arg) => !arg.startsWith('-') && arg !== 'run');
  if (named.length > 0) return;
  console.log(
    'npm test: about 100 test files over real HTTPS against the simulator; about 9 minutes on an idle ' +
      '2-core machine, several times that on a busy one. Each file is listed as it finishes.',
  );
}
