/**
 * The loader's documents from a document template (`run --docs-like`: a template inferred from a sample
 * of the user's collection, lib/capture/docs-like): each document is the template's next value, with
 * the loader's integer `_id` 0..N-1 in place of any `_id` the template makes, so the loaded ids stay
 * the ones --docs and the presets count on, and a re-run with the same --seed loads the same documents.
 */
import { UsageError } from '../../config/errors';
import { compileTemplate, TemplateScope } from './template';

export interface TemplateDocumentFactory {
  make(id: number): Record<string, unknown> & { _id: number };
}

export function templateDocumentFactory(template: unknown, seed: number): TemplateDocumentFactory {
  if (template === null || typeof template !== 'object' || Array.isArray(template)) {
    throw new UsageError('option --docs-like: the document template must be an object');
  }
  const scope = new TemplateScope();
  const next = compileTemplate(template, 'docs-like template', scope);
  const state = scope.newClientState(0, seed);
  return {
    make(id: number) {
      // A constant template is returned as it is (never copied): copy before setting _id, which goes first
      // (where the server puts it) and replaces the template's own.
      const doc: Record<string, unknown> & { _id: number } = {
        _id: id,
        ...(next(state) as Record<string, unknown>),
      };
      doc._id = id;
      return doc;
    },
  };
}
