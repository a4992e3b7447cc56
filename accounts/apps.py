from django.apps import AppConfig
from django.db.models.signals import post_delete
from django.utils.translation import gettext_lazy as _


class AccountsConfig(AppConfig):
    name = "accounts"
    verbose_name = _("Cuentas")

    def ready(self) -> None:
        from accounts.models import User
        from characters.portraits import delete_avatar_of_deleted_user

        post_delete.connect(delete_avatar_of_deleted_user, sender=User, dispatch_uid="avatar-files")
